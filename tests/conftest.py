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


@pytest.fixture
def verdict(capsys):
    """``verdict()``: the one line an exercise check printed since the last call (it must print exactly one)."""

    def read() -> str:
        out = capsys.readouterr().out
        assert out.count("\n") == 1, f"one verdict line, got {out!r}"
        return out.strip()

    return read


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty folder for the learner's my_alphazero/ (``MY_ALPHAZERO_HOME``), forgotten again afterwards."""
    from alphazero_lib.course import mine

    monkeypatch.setenv(mine.HOME_VARIABLE, str(tmp_path))
    monkeypatch.delenv(mine.KEEP_VARIABLE, raising=False)
    yield tmp_path
    for name in [m for m in sys.modules if m == mine.PACKAGE or m.startswith(mine.PACKAGE + ".")]:
        del sys.modules[name]
    while str(tmp_path) in sys.path:
        sys.path.remove(str(tmp_path))


@pytest.fixture
def fake_ort(tmp_path) -> Path:
    """An npm prefix holding empty stand-ins for onnxruntime-web's files (version 1.30.0 in its package.json)."""
    from alphazero_lib.web.page import ORT_WEB_FILES

    dist = tmp_path / "ort" / "node_modules" / "onnxruntime-web" / "dist"
    dist.mkdir(parents=True)
    for name in ORT_WEB_FILES:
        (dist / name).write_bytes(b"")
    (dist.parent / "package.json").write_text('{"version": "1.30.0"}')
    return tmp_path / "ort"


@pytest.fixture
def one_line_error(capsys):
    """``one_line_error(argv)``: run the command line, which must fail with exit code 2 and one line on stderr (no
    traceback); returns that line."""
    from alphazero_lib.cli import main

    def run(argv: list[str]) -> str:
        try:
            code = main(argv)
        except SystemExit as stop:  # argparse
            code = stop.code
        assert code == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        return err.strip()

    return run
