"""Determinism proven, not assumed: the engine compiled to WebAssembly, in real Chromium, gives
the native engine's v2 frames byte for byte (`sentAt` fixed) over thousands of random input
scripts with every input kind, edges, row moves, resizes and reduced motion (docs/wasm.md)."""

from __future__ import annotations

import os
import urllib.request

import pytest

from page_fixtures import browser_type_launch_args, page_server  # noqa: F401  (fixtures used by name)
from wasm_crosscheck import WASM, cross_check, describe_mismatch, math_cross_check

SCRIPTS = int(os.environ.get("SCROLLCAST_WASM_SCRIPTS", "1600"))
# Scripts in random scenes (sizes, 1 to 20,000 rows, zero and odd heights, up to 16 layers; any
# 30 seeds in a row include one of 1 row and one of 20,000); their seeds start at
# SCROLLCAST_WASM_SCENE_SEED (a failure names the seed to rerun). `make bench-wasm` runs more.
SCENE_SCRIPTS = int(os.environ.get("SCROLLCAST_WASM_SCENE_SCRIPTS", "60"))
SCENE_SEED = int(os.environ.get("SCROLLCAST_WASM_SCENE_SEED", "0"))


@pytest.fixture(autouse=True)
def module_built():
    assert WASM.exists(), f"{WASM} is missing: `make` builds it (scripts/build-wasm.sh)"


def test_the_server_serves_the_engine_as_application_wasm(page_server):
    with urllib.request.urlopen(f"{page_server.base_url}/wasm/scrollcast-engine.wasm") as reply:
        assert reply.headers["Content-Type"] == "application/wasm"
        assert reply.read() == WASM.read_bytes()


@pytest.mark.long(60)
def test_native_and_wasm_engines_give_identical_frames(page, page_server):
    messages = []
    page.on("console", lambda m: messages.append(m.text))
    page.goto(f"{page_server.base_url}/js/replica/engine.js")
    result = cross_check(page, 0, SCRIPTS)
    assert "scripts" in result, describe_mismatch(result) + "\nconsole: " + "\n".join(messages[-5:])
    assert result["scripts"] == SCRIPTS
    assert (result["page_steps"], result["page_frames"]) == (result["steps"], result["frames"])
    assert result["frames"] > 20 * SCRIPTS
    # Every script went through the engine's state bytes midway and continued as the native did.
    assert result["page_restored"] == SCRIPTS


def test_native_and_wasm_engines_give_identical_frames_in_random_scenes(page, page_server):
    """Any scene a file or an upload may describe replicates bit-identically: the page makes it
    from the bytes the server would serve (`SceneBytes`), the native side from the configuration."""
    page.goto(f"{page_server.base_url}/js/replica/engine.js")
    result = cross_check(page, SCENE_SEED, SCENE_SCRIPTS, batch=25, random_scenes=True)
    assert "scripts" in result, describe_mismatch(result, random_scenes=True)
    assert result["scripts"] == SCENE_SCRIPTS
    assert (result["page_steps"], result["page_frames"]) == (result["steps"], result["frames"])
    assert result["frames"] > 20 * SCENE_SCRIPTS


def test_native_and_wasm_math_functions_agree_bit_for_bit(page, page_server):
    """The engine's own exp, log and pow (EngineMath) over their whole range, the engine's inputs
    densely, every special value: the module's results are the native ones, bit for bit."""
    page.goto(f"{page_server.base_url}/js/replica/engine.js")
    result = math_cross_check(page)
    assert set(result) == {"exp", "log", "pow"}
    for name, r in result.items():
        assert r["checked"] >= 30_000, (name, r["checked"])
        assert r["mismatches"] == 0, f"{name}: {r['mismatches']} results differ, first {r['first']}"
        # The same comparison finds the browser's own Math functions (V8's) differing from the
        # engine's somewhere: it is not blind.
        assert r["browserDiffers"] > 0, name


def test_a_bad_call_is_refused_and_leaves_the_engine_usable(page, page_server):
    page.goto(f"{page_server.base_url}/js/replica/engine.js")
    codes = page.evaluate("""async () => {
        const {loadEngine} = await import("/js/replica/engine.js");
        const engine = await loadEngine();
        const before = engine.exports.scrollcast_frame(0, 0, 0);
        const unknown = engine.create("tomorrow");
        const created = engine.create("seed-table");
        const order = engine.order();
        // A viewer name that is not UTF-8 (a lone continuation byte), through the raw export.
        const raw = engine.exports, notUTF8 = raw.scrollcast_input(1);
        new Uint8Array(raw.memory.buffer)[notUTF8] = 0x80;
        const badViewer = raw.scrollcast_apply(6, 1, 0, 0, 0, 0, 0, 1);
        return {
            badViewer,
            before, unknown, created, rows: order.flat().length,
            lostRow: engine.restore([order[0].slice(1)], {width: 390, height: 844}, 0),
            badKind: engine.apply({kind: 99}, 1, 0, "v").code,
            badKey: engine.apply({kind: 6, a: 8}, 1, 0, "v").code,
            badId: engine.apply({kind: 6, a: 0}, -1, 0, "v").code,
            applied: engine.apply({kind: 6, a: 7}, 1, 10, "v").code,
            backwards: engine.apply({kind: 6, a: 6}, 2, 5, "v").code,
            atEnd: engine.frame(5000, 1, 0).contentOffset,
        };
    }""")
    assert codes["before"] == -11 and codes["unknown"] == -11 and codes["created"] == 0
    assert codes["rows"] == 20 and codes["lostRow"] == -12
    assert (codes["badKind"], codes["badKey"], codes["badId"], codes["badViewer"]) == (-10, -10, -12, -12)
    assert codes["applied"] == 0 and codes["backwards"] == -1
    # `end` scrolled the seed table (880 pt of rows in 844 pt under a 44 pt inset) from -44 to its bottom.
    assert codes["atEnd"] > 0
