"""The bench package's pure parts, tested without a server (`make test` runs this folder with
Tests/e2e). The package is imported from the repository's root, as `python3 -m bench.…` runs it."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
