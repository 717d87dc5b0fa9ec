"""`python -m avatar ...`: the same as the `avatar` command."""
from avatar.cli import main

raise SystemExit(main())
