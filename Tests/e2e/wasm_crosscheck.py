"""The native/WebAssembly cross-check (docs/wasm.md, "Determinism"), shared by the e2e test and
`make bench-wasm`: the native `scrollcast-replica-check` writes random input scripts with the
numbers the native engine gives for every step (FNV-1a and length of each v2 frame), and the
WebAssembly engine runs the same scripts in real Chromium, loaded from the real server through
Public/js/replica/engine.js, comparing every step."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from server_helpers import REPO

RUNNER = (Path(__file__).parent / "wasm_crosscheck.js").read_text()
WASM = REPO / "Public" / "wasm" / "scrollcast-engine.wasm"
SENT_AT = 1_764_000_000_123.45  # CrossCheckRun.sentAt
VIEWERS = ["viewer-a", "v2"]  # CrossCheckScript.viewers


def check_binary() -> Path:
    return Path(os.environ["SCROLLCAST_BIN"]).with_name("scrollcast-replica-check")


def native_scripts(first: int, count: int) -> tuple[list[dict], float]:
    """Scripts `first`…`first+count-1` with the native engine's numbers, and the seconds it took."""
    started = time.monotonic()
    out = subprocess.run([str(check_binary()), str(first), str(count)], check=True, capture_output=True, text=True,
                         timeout=600).stdout
    return [json.loads(line) for line in out.splitlines()], time.monotonic() - started


def native_frame_hex(seed: int, step: int) -> str:
    return subprocess.run([str(check_binary()), "--bytes", str(seed), str(step)], check=True, capture_output=True,
                          text=True, timeout=60).stdout.strip()


def run_in_browser(page, scripts: list[dict], batch: int = 200) -> dict:
    """Runs `scripts` on the page's WebAssembly engine; the totals, or the first mismatch."""
    totals = {"steps": 0, "frames": 0, "ms": 0.0}
    for start in range(0, len(scripts), batch):
        result = page.evaluate(RUNNER, {"scripts": scripts[start:start + batch], "sentAt": SENT_AT, "viewers": VIEWERS})
        if "error" in result or result.get("mismatch"):
            return result
        for key in totals:
            totals[key] += result[key]
    return totals


def describe_mismatch(result: dict) -> str:
    if "error" in result:
        return f"script seed {result['seed']}: {result['error']}"
    text = (f"script seed {result['seed']}, step {result['step']}"
            + (f" (frame {result['frameIndex']})" if result["frameIndex"] else " (an input)")
            + f": WebAssembly gave {result['got']}, native {result['want']} (hash, length, texts hash / result code)")
    if result["bytes"] is not None:
        text += f"\n  wasm bytes:   {result['bytes']}\n  native bytes: {native_frame_hex(result['seed'], result['step'])}"
    return text
