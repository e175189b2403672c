"""Root conftest: notebook kernels started by nbval inherit this environment; play cells stay quiet there."""

import os
import tempfile

os.environ.setdefault("ALPHAZERO_HEADLESS", "1")
# the checks keep a learner's code in $MY_ALPHAZERO_HOME/my_alphazero: never in the checkout, never a developer's own
os.environ["MY_ALPHAZERO_HOME"] = tempfile.mkdtemp(prefix="my_alphazero_home_")
# the capstone (notebook 10) trains for seconds, not 20 minutes, under nbval (its stored outputs come from that run)
os.environ.setdefault("ALPHAZERO_CAPSTONE_QUICK", "1")
# pytest-xdist runs the suite in one process per core: a kernel or subprocess with more threads than its share
# only spin-waits beside the other workers (tests pin torch to one thread themselves: tests/conftest.py)
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["OMP_NUM_THREADS"] = "1"
