"""`python -m vision.train`: see `vision.train.cli`."""

import sys

from vision.train.cli import main

sys.exit(main())
