"""What vulture cannot see being used (``python tools/dead_code.py`` reads this file): each name with its reason.

Vulture matches names only, so a line here keeps every use of that name alive; keep the list short.
"""

# ruff: noqa: B018, F821

# ---- called by Python, a framework or a generated file, never by name in this repository ----------------------------
__getattr__  # alphazero_lib/__init__.py: the module's lazy attribute hook (PEP 562), called by Python
_.__signature__  # exercises/nb01_games.py: inspect.signature reads it (the stand-in shows the learner's signature)
log_message  # web/page.py: http.server.BaseHTTPRequestHandler's hook, overridden to keep the server quiet
signum  # kaggle/environment.py: a signal handler's first parameter, required by signal.signal
decode_weights  # kaggle/agent.py: called by the one-file agent whose source kaggle/submission.py writes as text
pytest_runtest_makereport  # benchmarks/gpu/record_cells.py: a pytest hook
pytest_collection_modifyitems  # benchmarks/results/test_time_2026-11-29/leave_out.py: a pytest hook

# ---- attributes a library reads, set here -------------------------------------------------------------------------
_.disabled  # course/explorer.py, play_board.py: ipywidgets traits, read by the widget front end
_.description  # course/play_board.py: an ipywidgets trait
_.button_color  # course/play_board.py: an ipywidgets style trait
_.padding  # exercises/nb03_model.py: torch's Conv2d reads it in forward (the unpadded mistake)
_.writeable  # exercises/positions.py: numpy's array flag (shared positions are read-only)
_.intra_op_num_threads  # onnx_network.py: onnxruntime.SessionOptions, read by the session
_.inter_op_num_threads  # onnx_network.py: onnxruntime.SessionOptions
_.log_severity_level  # onnx_network.py: onnxruntime.SessionOptions

# ---- dataclass fields read through dataclasses.asdict ---------------------------------------------------------------
terminal_leaves  # alpha_mcts.SearchStats, batched_mcts.BatchedSearchStats: reported by their to_dict()
reused_roots  # batched_mcts.BatchedSearchStats: to_dict() -> self-play's search stats and history.json
search_seconds  # batched_mcts.BatchedSearchStats: to_dict()

# ---- text the tests hold the repository to ---------------------------------------------------------------------------
SETUP_CELL  # tools/set_repository.py: every notebook's setup cell; tests/test_repository_address.py compares them
