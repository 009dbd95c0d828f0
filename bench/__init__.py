"""The benchmarks behind docs/benchmarks.md, one package run from the repository's root
(`python3 -m bench.ladder --help`; the Makefile's bench targets do it for you).

Entry points: `bench.ladder` (`make bench`, `make bench-wire`), `bench.durability`,
`bench.slow_consumers`, `bench.cluster`, `bench.links`, `bench.isolation`, `bench.wasm_scale`,
and the hand-run `bench.applied_bench` and `bench.syscalls_per_frame`. Shared parts: `server`
(a server on a free port), `load_step` (one `scrollcast-load` step), `sampler` (/proc, and the one
loop that samples while the load tool measures), `frame_cost` (CPU per delivered frame) and
`benchmarks_doc` (the one way to write a section of docs/benchmarks.md).
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RELEASE = ROOT / ".build" / "release"
E2E = ROOT / "Tests" / "e2e"

# The benches start servers, Redis and link proxies with the e2e tests' own helpers, so a bench
# and a test drive the same parts alike; appended, so nothing of the package's is shadowed.
if str(E2E) not in sys.path:
    sys.path.append(str(E2E))
