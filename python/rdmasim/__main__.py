"""`python -m rdmasim` is the `rdmasim` command."""
import sys

from .cli import main

sys.exit(main())
