"""A pytest plugin: leaves out the node ids listed in ``$LEAVE_OUT`` (a JSON list, from ``attribute.py``).

LEAVE_OUT=leave_out.json PYTHONPATH=benchmarks/results/test_time_2026-11-29 python -m pytest -p leave_out
"""

import json
import os


def pytest_collection_modifyitems(config, items):
    listed = set(json.loads(open(os.environ["LEAVE_OUT"]).read()))
    gone = [item for item in items if item.nodeid in listed]
    if gone:
        config.hook.pytest_deselected(items=gone)
        items[:] = [item for item in items if item.nodeid not in listed]
