"""``python -m mqkafka.cli`` is ``mqk``."""

import sys

from mqkafka.cli import main

sys.exit(main())
