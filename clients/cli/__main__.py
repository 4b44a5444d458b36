"""``python -m quiltsolve.clients.cli``: the ``suggest`` command."""

import sys

from . import main

sys.exit(main())
