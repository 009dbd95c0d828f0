"""The native/WebAssembly cross-check (docs/wasm.md, "Determinism"), shared by the e2e test and
`make bench-wasm`: the native `scrollcast-replica-check` writes random input scripts with the
numbers the native engine gives for every step (FNV-1a and length of each v2 frame), and the
WebAssembly engine runs the same scripts in real Chromium, loaded from the real server through
Public/js/replica/engine.js, comparing every step."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from server_helpers import REPO

RUNNER = (Path(__file__).parent / "wasm_crosscheck.js").read_text()
MATH_RUNNER = (Path(__file__).parent / "wasm_math_crosscheck.js").read_text()
WASM = REPO / "Public" / "wasm" / "scrollcast-engine.wasm"
SENT_AT = 1_764_000_000_123.45  # CrossCheckRun.sentAt
VIEWERS = ["viewer-a", "v2"]  # CrossCheckScript.viewers


def check_binary() -> Path:
    """The native tool: $SCROLLCAST_CHECK_BIN, else next to $SCROLLCAST_BIN."""
    if "SCROLLCAST_CHECK_BIN" in os.environ:
        return Path(os.environ["SCROLLCAST_CHECK_BIN"])
    return Path(os.environ["SCROLLCAST_BIN"]).with_name("scrollcast-replica-check")


def cross_check(page, first: int, count: int, batch: int = 100, random_scenes: bool = False) -> dict:
    """Runs scripts `first`…`first+count-1` (with `random_scenes`, each in a random scene of its
    own, made in the page from its SceneBytes): the native tool writes them while the page runs the
    batches already written (two processes, two cores). Returns the native summary
    (`scripts`, `steps`, `frames`) and the page's (`page_steps`, `page_frames`, `wasm_ms`), or
    the page's first mismatch. Scripts cross to the page as JSON text, which is far cheaper than
    Playwright's serialization of the parsed objects."""
    native = subprocess.Popen([str(check_binary()), str(first), str(count)] + _flags(random_scenes),
                              stdout=subprocess.PIPE, text=True)
    totals = {"page_steps": 0, "page_frames": 0, "page_restored": 0, "wasm_ms": 0.0}
    pending: list[str] = []
    summary = None
    try:
        for line in native.stdout:
            if line.startswith("# "):
                summary = {k: int(v) for k, v in (part.split("=") for part in line[2:].split())}
                break
            pending.append(line)
            if len(pending) == batch:
                result = _run_batch(page, pending)
                pending = []
                if "steps" not in result:
                    return result
                _add(totals, result)
        if pending:
            result = _run_batch(page, pending)
            if "steps" not in result:
                return result
            _add(totals, result)
    finally:
        if summary is None:
            native.kill()  # a mismatch (or an error) ends the run early
        native.stdout.close()
        code = native.wait(timeout=60)
    assert code == 0, f"scrollcast-replica-check exited with {code}"
    return {**summary, **totals}


def _run_batch(page, lines: list[str]) -> dict:
    return page.evaluate(RUNNER, {"scripts": "[" + ",".join(lines) + "]", "sentAt": SENT_AT, "viewers": VIEWERS})


def _add(totals: dict, result: dict) -> None:
    totals["page_steps"] += result["steps"]
    totals["page_frames"] += result["frames"]
    totals["page_restored"] += result["restored"]
    totals["wasm_ms"] += result["ms"]


def math_cross_check(page) -> dict:
    """The engine's own exp, log and pow, native (`scrollcast-replica-check --math`: arguments and
    results) against WebAssembly in the page: per function `checked`, `mismatches` (and the
    `first`), and `browserDiffers`, how many of the browser's Math results differ from native."""
    lines = subprocess.run([str(check_binary()), "--math"], check=True, capture_output=True, text=True,
                           timeout=60).stdout.splitlines()
    return page.evaluate(MATH_RUNNER, {"lines": lines})


def _flags(random_scenes: bool) -> list[str]:
    return ["--random-scenes"] if random_scenes else []


def native_frame_hex(seed: int, step: int, random_scenes: bool = False) -> str:
    return subprocess.run([str(check_binary()), "--bytes", str(seed), str(step)] + _flags(random_scenes), check=True,
                          capture_output=True, text=True, timeout=60).stdout.strip()


def describe_mismatch(result: dict, random_scenes: bool = False) -> str:
    """The page's first mismatch, with what reproduces it (`scrollcast-replica-check` arguments)."""
    seed = f"script seed {result.get('seed')}" + (" (--random-scenes)" if random_scenes else "")
    if "error" in result:
        return f"{seed}: {result['error']}"
    text = (f"{seed}, step {result['step']}"
            + (f" (frame {result['frameIndex']})" if result["frameIndex"] else " (an input)")
            + f": WebAssembly gave {result['got']}, native {result['want']}"
            + " (hash, length, texts hash / result code; one value: the beat's frame hash)")
    if result["bytes"] is not None:
        text += f"\n  wasm bytes:   {result['bytes']}\n  native bytes: {native_frame_hex(result['seed'], result['step'], random_scenes)}"
    return text
