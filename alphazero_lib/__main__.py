"""``python -m alphazero_lib``: the command line."""

from alphazero_lib.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
