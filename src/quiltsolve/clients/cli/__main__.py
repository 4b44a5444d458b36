"""``python -m quiltsolve.clients.cli``: the ``suggest`` command."""

import sys

from . import main

if __name__ == "__main__":      # imported (the fresh-import test, a tool), it only defines
    sys.exit(main())
