"""``python -m scorer``: the command line (see ``scorer.cli``)."""

from scorer.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
