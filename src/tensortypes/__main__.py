"""``python -m tensortypes``: the command line of ``tensortypes.cli`` (facade)."""

from tensortypes.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
