import sys

from soan.cli import main

sys.exit(main())
