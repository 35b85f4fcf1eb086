"""``python -m nkcore``: the command-line interface (see ``nkcore.cli``)."""

import sys

from nkcore.cli import main

sys.exit(main())
