"""Files written by the library (utils.py): written whole or not at all, and a failed write names the path and what
to do (issue 28). The run directory's own files are tested in test_rundir.py."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from alphazero_lib.cli import main

ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


def test_playoff_on_a_full_disk_leaves_the_old_page_whole(tmp_path):
    pytest.importorskip("kaggle_environments")
    page = tmp_path / "playoff.html"
    page.write_text("<html>the page of yesterday's playoff</html>\n" * 200)
    before = page.read_bytes()
    # a real process whose files may not grow past 4 kB: the new page (much larger) cannot be written
    script = textwrap.dedent(
        """
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        from alphazero_lib.cli import main
        sys.exit(main(sys.argv[1:]))
        """
    )
    argv = ["playoff", "--game", "tictactoe", "--player1", "random", "--player2", "random", "--out", str(page)]
    done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, env=ENV)
    assert done.returncode == 2, done.stderr
    assert f"error: cannot write {page}: the file is too large" in done.stderr
    assert f"{page} was left as it was" in done.stderr
    assert page.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["playoff.html"]  # no temporary file left behind


@pytest.mark.parametrize(
    "code, advice",
    [
        ("EROFS", "the file system is read-only; write somewhere else (another --out) or mount it writable"),
        ("EACCES", "permission denied: you may not write in {dir}; pick a directory you own, or make it writable"),
        ("EDQUOT", "the disk is full"),
    ],
)
def test_write_failures_name_the_path_and_what_to_do(tmp_path, monkeypatch, capsys, code, advice):
    import errno
    import tempfile

    def refuse(*args, **kwargs):
        raise OSError(getattr(errno, code), os.strerror(getattr(errno, code)))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    target = tmp_path / "submission.py"
    assert main(["export-kaggle", "--weights", "connect_four", "--out", str(target), "--searches", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: cannot write {target}: ") and advice.format(dir=tmp_path) in err, err
    assert len(err.strip().splitlines()) == 1
