"""`make bench-wasm`: the native/WebAssembly cross-check at scale (docs/wasm.md, "Determinism").

Runs N random input scripts (argument, default 20000; a tenth of them in random scenes of
their own, `--random-scenes`) through the native engine (release
`scrollcast-replica-check`) and through the WebAssembly engine in headless Chromium, served by
the real release server, compares every step, and prints counts, times and the module's sizes.
Any mismatch ends the run with the script seed, frame and bytes. Headline last.
The server and the native tool are $SCROLLCAST_BIN and $SCROLLCAST_CHECK_BIN, as in the e2e tests."""

from __future__ import annotations

import sys
import time

from playwright.sync_api import sync_playwright
from server_helpers import RunningServer  # the e2e tests' helpers (Tests/e2e)
from wasm_crosscheck import WASM, cross_check, describe_mismatch
from wasm_size import describe_sizes, module_sizes

from .server import bench_parser


def main(argv=None) -> int:
    parser = bench_parser("wasm_scale", __doc__, binaries=False)
    parser.add_argument("scripts", type=int, nargs="?", default=20000, help="random input scripts to compare")
    count = parser.parse_args(argv).scripts
    print(f"wasm module: {describe_sizes(WASM)}")
    server = RunningServer()
    total = {"scripts": 0, "steps": 0, "frames": 0, "wasm_ms": 0.0}
    started = time.monotonic()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium")
            page = browser.new_page()
            page.goto(f"{server.base_url}/js/replica/engine.js")
            scene_count = count // 10
            batches = [(first, min(5000, count - first), False) for first in range(0, count, 5000)]
            batches += [(first, min(500, scene_count - first), True) for first in range(0, scene_count, 500)]
            for first, n, random_scenes in batches:
                result = cross_check(page, first, n, batch=100 if not random_scenes else 25, random_scenes=random_scenes)
                if "scripts" not in result:
                    print("MISMATCH: " + describe_mismatch(result, random_scenes))
                    print("wasm_crosscheck_mismatches=1")
                    return 1
                assert (result["page_steps"], result["page_frames"]) == (result["steps"], result["frames"])
                for key in ("scripts", "steps", "frames", "wasm_ms"):
                    total[key] += result[key]
                print(f"  {total['scripts']} scripts, {total['frames']} frames identical", flush=True)
            browser.close()
    finally:
        server.stop()
    elapsed = time.monotonic() - started
    print(f"wall time {elapsed:.1f} s (native scripts written while the page runs earlier ones); "
          f"wasm engine in Chromium: {total['wasm_ms'] / 1000:.1f} s, "
          f"{1000 * total['wasm_ms'] / max(total['steps'], 1):.1f} us a step")
    print(f"steps compared: {total['steps']} ({total['frames']} frames), mismatches: 0")
    plain, gzipped = module_sizes(WASM)
    print(f"wasm_module_bytes={plain}")
    print(f"wasm_module_gzipped_bytes={gzipped}")
    print(f"wasm_crosscheck_identical_scripts={total['scripts']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
