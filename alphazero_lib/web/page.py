"""``export-web``: a folder holding a static page that plays a network as the player spec ``alphazero:W:N`` does.

The folder (``export_web``) holds the page (``index.html``, ``app.js``, ``worker.js``, ``search.js``, ``style.css``,
package data under ``static/``), the network as ``model.onnx``, ``config.json`` (the game, its board style, the
searches per move, PUCT's ``C``) and onnxruntime-web's three files, copied from an npm install of the pinned version
(``ORT_WEB_VERSION``): nothing is fetched from the internet when the page plays. Any static file server will do
(``python -m http.server``, GitHub Pages); opened straight from the disk (``file://``) the browser refuses the
page's module scripts and WebAssembly, and the page says so.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from alphazero_lib.utils import replace_folder
from alphazero_lib.web.onnx_export import check_exportable, onnx_bytes

STATIC_DIR = Path(__file__).resolve().parent / "static"
PAGE_FILES = ("index.html", "app.js", "worker.js", "search.js", "style.css")
#: The onnxruntime-web release the page was tested with, and the files of its npm package's ``dist/`` it needs: the
#: WebAssembly build's ES module, its loader, and the WebAssembly binary (SIMD, single-threaded use).
ORT_WEB_VERSION = "1.30.0"
ORT_WEB_FILES = ("ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm")
#: What ``config.json`` says it is, so that a second export may replace a first one but never another folder.
KIND = "alphazero_lib web export"
WEB_GAMES = ("connect_four", "tictactoe")


def default_ort_web_dir() -> Path:
    """Where ``export-web`` looks for onnxruntime-web when not told: ``$ALPHAZERO_ORT_WEB``, else a folder in the
    user's cache (``~/.cache/alphazero_lib/onnxruntime-web-VERSION``)."""
    if os.environ.get("ALPHAZERO_ORT_WEB"):
        return Path(os.environ["ALPHAZERO_ORT_WEB"]).expanduser()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "alphazero_lib" / f"onnxruntime-web-{ORT_WEB_VERSION}"


def npm_command(folder: Path) -> str:
    """The one line that installs onnxruntime-web where ``find_ort_web`` finds it."""
    return f"npm install --prefix {folder} onnxruntime-web@{ORT_WEB_VERSION}"


def find_ort_web(folder: str | os.PathLike[str] | None = None) -> Path:
    """The ``dist`` folder of onnxruntime-web's npm package in ``folder`` (an npm prefix, the package, or its
    ``dist``; default ``default_ort_web_dir()``).

    Raises ``FileNotFoundError`` saying which files are missing and the npm command that installs them.
    """
    root = Path(folder).expanduser() if folder is not None else default_ort_web_dir()
    for candidate in (root, root / "dist", root / "node_modules" / "onnxruntime-web" / "dist"):
        if all((candidate / name).is_file() for name in ORT_WEB_FILES):
            return candidate
    raise FileNotFoundError(
        f"onnxruntime-web's files ({', '.join(ORT_WEB_FILES)}) are not in {root}; install them once with "
        f"`{npm_command(default_ort_web_dir() if folder is None else root)}` (npm comes with Node.js; Colab has "
        f"it), then export again{'' if folder is not None else ' (or give --ort-web DIR)'}"
    )


def ort_web_version(dist: Path) -> str | None:
    """The version in the npm package's ``package.json`` beside ``dist`` (None if unreadable)."""
    try:
        return str(json.loads((dist.parent / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def page_config(model: Any, num_searches: int, C: float, title: str | None, source: str | None) -> dict[str, Any]:
    """``config.json``: the game, its look, the search's settings and where the page came from."""
    from alphazero_lib.animation import WIN_COLOR
    from alphazero_lib.games.style import style_of

    game = model.game
    blocks, width = model.arch["num_res_blocks"], model.arch["num_hidden"]
    return {
        "kind": KIND,
        "game": dict(game.config),
        "game_repr": repr(game),
        "title": title or f"{source or 'an AlphaZero agent'}",
        "subtitle": f"{game!r}; a ResNet of {blocks} blocks x {width} channels; AlphaZero's search (PUCT, C = {C:g})",
        "arch": dict(model.arch),
        "weights": source,
        "searches": int(num_searches),
        "C": float(C),
        "onnx": "model.onnx",
        "style": asdict(style_of(game)),
        "win_color": WIN_COLOR,
    }


def check_settings(model: Any, num_searches: int, C: float) -> None:
    """Raise ``ValueError`` for a game the page does not play, or searches and ``C`` it cannot use."""
    from alphazero_lib.config import check_exported_search, check_limit

    game = getattr(model, "game", None)
    name = getattr(game, "config", {}).get("name") if game is not None else None
    if name not in WEB_GAMES:
        raise ValueError(f"export-web writes pages for Connect Four and Tic-Tac-Toe, not {game!r}")
    check_exported_search(num_searches, C)
    check_limit("num_searches", "num_searches", num_searches)  # the page searches in the browser: LIMITS' cap


def _check_target(out: Path) -> None:
    """Refuse a file, and a folder that holds anything but an earlier export (which is replaced)."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} is a file; export-web writes a folder (give a new or empty folder's name)")
    if out.is_dir() and any(out.iterdir()):
        try:
            kind = json.loads((out / "config.json").read_text()).get("kind")
        except (OSError, ValueError, AttributeError):
            kind = None
        if kind != KIND:
            raise ValueError(
                f"{out} is a folder that holds other files; export-web replaces only a folder it wrote itself "
                "(give a new or empty folder's name)"
            )


def export_web(
    model: Any,
    out: str | os.PathLike[str],
    *,
    num_searches: int = 200,
    C: float = 2.0,
    ort_web: str | os.PathLike[str] | None = None,
    title: str | None = None,
    source: str | None = None,
) -> Path:
    """Write the page for ``model`` (a ``ResNet`` for Connect Four or Tic-Tac-Toe, as ``load_model`` returns) into
    the folder ``out``; returns it.

    ``num_searches`` is the page's default searches per move (the player can change it), ``C`` PUCT's constant,
    ``ort_web`` where onnxruntime-web's npm files are (see ``find_ort_web``), ``source`` the weights' name for the
    page's title. The folder is written beside ``out`` and renamed into place: an error leaves ``out`` as it was.
    Raises ``ValueError`` (another game, non-finite weights, bad settings, ``out`` a file or someone else's folder),
    ``FileNotFoundError`` (onnxruntime-web not installed) or ``ImportError`` (the ``onnx`` extra not installed).
    """
    out = Path(out).expanduser()
    check_settings(model, num_searches, C)
    check_exportable(model)
    _check_target(out)
    dist = find_ort_web(ort_web)
    config = page_config(model, num_searches, C, title, source)
    config["onnxruntime_web"] = ort_web_version(dist)
    network = onnx_bytes(model)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp"))
    try:
        for name in PAGE_FILES:
            shutil.copyfile(STATIC_DIR / name, staging / name)
        for name in ORT_WEB_FILES:
            shutil.copyfile(dist / name, staging / name)
        (staging / "model.onnx").write_bytes(network)
        (staging / "config.json").write_text(json.dumps(config, indent=1) + "\n")
        (staging / "README.txt").write_text(readme_text(config))
        os.chmod(staging, 0o755)  # mkdtemp's 0700 would hide the folder from a web server run by someone else
        replace_folder(staging, out)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return out


def readme_text(config: dict[str, Any]) -> str:
    """The folder's ``README.txt``: what it is and how to open it."""
    return (
        f"Play {config['title']} ({config['game_repr']}) in a browser.\n\n"
        "Serve this folder with any static file server and open it, for example:\n\n"
        "    python -m http.server --directory THIS_FOLDER 8000\n"
        "    (then open http://localhost:8000)\n\n"
        "or put the folder on GitHub Pages or any static host. Opening index.html straight from the disk (file://)\n"
        "does not work: browsers refuse module scripts and WebAssembly from file:// pages.\n\n"
        f"The network (model.onnx) runs on onnxruntime-web {config.get('onnxruntime_web')} (MIT licence,\n"
        "(c) Microsoft Corporation; its files ort.wasm.min.mjs, ort-wasm-simd-threaded.mjs and\n"
        "ort-wasm-simd-threaded.wasm are copied here from its npm package), in the browser: nothing is sent anywhere.\n"
        "Written by `python -m alphazero_lib export-web` (alphazero_lib, AlphaZero from Scratch).\n"
    )


def page_size(folder: str | os.PathLike[str]) -> dict[str, int]:
    """The bytes of each file in an exported folder, and ``"total"``."""
    sizes = {path.name: path.stat().st_size for path in sorted(Path(folder).iterdir()) if path.is_file()}
    sizes["total"] = sum(sizes.values())
    return sizes


@contextlib.contextmanager
def serve(folder: str | os.PathLike[str], port: int = 0) -> Iterator[str]:
    """Serve ``folder`` over HTTP on 127.0.0.1 in a background thread while the block runs; yields its address
    (``port`` 0: a free port). What ``python -m http.server --directory FOLDER`` does, for tests and scripts."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # no line per request
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
