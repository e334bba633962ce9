"""``python -m xcsh.cli``."""

import sys

from xcsh.cli import main

sys.exit(main())
