"""Root conftest: notebook kernels started by nbval inherit this environment; play cells stay quiet there."""

import os

os.environ.setdefault("ALPHAZERO_HEADLESS", "1")
