import sys

from gitmem.cli import main

sys.exit(main())
