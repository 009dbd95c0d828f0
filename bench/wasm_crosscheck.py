"""`make bench-wasm`: the native/WebAssembly cross-check at scale (docs/wasm.md, "Determinism").

Runs N random input scripts (argument, default 20000) through the native engine (release
`scrollcast-replica-check`) and through the WebAssembly engine in headless Chromium, served by
the real release server, compares every step, and prints counts, times and the module's sizes.
Any mismatch ends the run with the script seed, frame and bytes. Headline last."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))

from playwright.sync_api import sync_playwright  # noqa: E402

from server_helpers import RunningServer  # noqa: E402
from wasm_crosscheck import WASM, describe_mismatch, native_scripts, run_in_browser  # noqa: E402


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    wasm = WASM.read_bytes()
    print(f"wasm module: {len(wasm)} bytes, {len(gzip.compress(wasm, 9))} gzipped")
    server = RunningServer()
    total = {"scripts": 0, "steps": 0, "frames": 0, "native_s": 0.0, "wasm_ms": 0.0}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium")
            page = browser.new_page()
            page.goto(f"{server.base_url}/js/replica/engine.js")
            for first in range(0, count, 1000):
                scripts, native_seconds = native_scripts(first, min(1000, count - first))
                result = run_in_browser(page, scripts)
                if "steps" not in result:
                    print("MISMATCH: " + describe_mismatch(result))
                    print("wasm_crosscheck_mismatches=1")
                    return 1
                total["scripts"] += len(scripts)
                total["native_s"] += native_seconds
                for key in ("steps", "frames"):
                    total[key] += result[key]
                total["wasm_ms"] += result["ms"]
                print(f"  {total['scripts']} scripts, {total['frames']} frames identical", flush=True)
            browser.close()
    finally:
        server.stop()
    print(f"native (scripts + JSON): {total['native_s']:.1f} s; "
          f"wasm in Chromium: {total['wasm_ms'] / 1000:.1f} s, {1000 * total['wasm_ms'] / max(total['steps'], 1):.1f} us a step")
    print(f"steps compared: {total['steps']} ({total['frames']} frames), mismatches: 0")
    print(f"wasm_crosscheck_identical_scripts={total['scripts']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
