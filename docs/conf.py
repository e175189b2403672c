"""Sphinx configuration of the site; built by ``python tools/build_site.py`` (see its docstring)."""

project = "AlphaZero from Scratch"
author = "the AlphaZero from Scratch contributors"
extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "conf.py"]
# the notebooks are shown with the outputs stored in them: nothing is executed while building
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header", "misc.highlighting_failure", "myst.xref_missing"]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}

html_theme = "sphinx_book_theme"
html_title = "AlphaZero from Scratch"
html_static_path = ["_static"]
html_theme_options = {
    "show_navbar_depth": 1,
    "show_toc_level": 2,
    "home_page_in_toc": True,
    "use_download_button": False,
    "use_fullscreen_button": False,
}
html_last_updated_fmt = None
# light, whatever the reader's system asks: without a default the theme logs "invalid theme mode" as a console error
html_context = {"default_mode": "light"}
html_show_sourcelink = False
html_copy_source = False  # no _sources/ copies of the pages and notebooks beside the HTML
