"""Dead code in files that another change was editing on 2026-12-04, left for that change to delete (then delete the
line here). ``python tools/dead_code.py`` reads this file beside ``vulture_allow.py``.
"""

# ruff: noqa: B018, F821

array_probs  # notebooks/07_parallel_self_play.ipynb: a variable its code cells assign and never read
