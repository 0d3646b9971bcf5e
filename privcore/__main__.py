"""``python -m privcore``: the command line (see :mod:`privcore.cli`)."""

import sys

from privcore.cli import main

sys.exit(main())
