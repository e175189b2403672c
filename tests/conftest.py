import sys
from pathlib import Path

import matplotlib
import pytest
import torch

matplotlib.use("Agg")
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Tiny networks run fastest on one thread; on a busy 2-core machine two threads spin (50x slower)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
