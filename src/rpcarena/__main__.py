"""`python -m rpcarena` is the `rpcarena` command."""

import sys

from rpcarena.cli import main

sys.exit(main())
