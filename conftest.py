"""Root conftest: notebook kernels started by nbval inherit this environment; play cells stay quiet there."""

import os
import tempfile

os.environ.setdefault("ALPHAZERO_HEADLESS", "1")
# the checks keep a learner's code in $MY_ALPHAZERO_HOME/my_alphazero: never in the checkout, never a developer's own
os.environ.setdefault("MY_ALPHAZERO_HOME", tempfile.mkdtemp(prefix="my_alphazero_home_"))
