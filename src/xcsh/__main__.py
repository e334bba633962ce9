"""``python -m xcsh``."""

import sys

from xcsh.cli import main

sys.exit(main())
