"""``python -m simsmem`` is the ``simsmem`` command."""

import sys

from .cli import main

sys.exit(main())
