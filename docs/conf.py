"""Sphinx configuration of the site; built by ``python tools/build_site.py`` (see its docstring)."""

from pathlib import Path

HERE = Path(__file__).resolve().parent  # the staging folder that tools/build_site.py fills

project = "AlphaZero from Scratch"
author = "the AlphaZero from Scratch contributors"
extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "conf.py", "_play"]
# the notebooks are shown with the outputs stored in them: nothing is executed while building
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["colon_fence", "deflist"]
# Math ($...$, $$...$$) typeset by the copy of MathJax that tools/build_site.py puts in _static/mathjax, its font
# beside it: nothing fetched from a CDN. Without that copy, math is shown as written.
if (HERE / "_static" / "mathjax" / "tex-mml-chtml.js").is_file():
    myst_enable_extensions.append("dollarmath")
    mathjax_path = "mathjax/tex-mml-chtml.js"  # relative to _static
    mathjax4_config = {"loader": {"paths": {"fonts": "[mathjax]/fonts"}}}  # MathJax's default: cdn.jsdelivr.net
# The Play page's game: the folder export-web wrote into _play/ (tools/build_site.py), copied beside the pages.
if (HERE / "_play").is_dir():
    html_extra_path = ["_play"]
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
