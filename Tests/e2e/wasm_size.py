"""The WebAssembly module's size targets (docs/wasm.md, "Size"), shared by its test and
`make bench-wasm`. KB are 1,024 bytes; gzip at level 9, as a server compressing it would."""

from __future__ import annotations

import gzip
from pathlib import Path

MAX_BYTES = 150 * 1024
MAX_GZIPPED = 60 * 1024


def module_sizes(path: Path) -> tuple[int, int]:
    """The module's size as served, and gzipped."""
    data = path.read_bytes()
    return len(data), len(gzip.compress(data, 9))


def describe_sizes(path: Path) -> str:
    plain, gzipped = module_sizes(path)
    return (f"{plain} bytes ({plain / 1024:.1f} KB, target {MAX_BYTES // 1024} KB), "
            f"{gzipped} gzipped ({gzipped / 1024:.1f} KB, target {MAX_GZIPPED // 1024} KB)")
