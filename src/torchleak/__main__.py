"""``python -m torchleak``."""

from torchleak.cli import main

raise SystemExit(main())
