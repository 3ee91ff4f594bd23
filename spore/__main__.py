"""``python -m spore run SCRIPT [ARGS...]``."""
import sys

from ._cli import main

sys.exit(main())
