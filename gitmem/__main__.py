import sys

from gitmem.faces.cli import main

sys.exit(main())
