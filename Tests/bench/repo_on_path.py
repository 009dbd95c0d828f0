"""Puts the repository's root on sys.path, so the tests here import the bench package as
`python3 -m bench.…` runs it. A module of its own, not a conftest.py: some e2e tests import
`conftest` by name, and a second one would shadow theirs when `make test` collects both folders."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
