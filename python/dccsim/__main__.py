"""`python -m dccsim` is the `dccsim` command."""

import sys

from .cli import main

sys.exit(main())
