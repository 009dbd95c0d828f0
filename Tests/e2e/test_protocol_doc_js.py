"""The JavaScript of docs/protocol.md ("Reading it in JavaScript") and the page's own decoder
(Public/js/wire-v2.js), run in node: varints are exact up to 2^53 − 1 and refused above it, and
deltas summed in units give the doubles version 1 writes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from server_helpers import PUBLIC, REPO

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def doc_javascript() -> str:
    doc = (REPO / "docs" / "protocol.md").read_text()
    section = doc[doc.index("### Reading it in JavaScript"):]
    return re.search(r"```js\n(.*?)```", section, re.S).group(1)


def node(script: str):
    result = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


CHECKS = """
const view = (bytes) => new DataView(new Uint8Array(bytes).buffer);
const read = (f, bytes) => { try { const pos = {offset: 0}; return [f(view(bytes), pos), pos.offset]; } catch (e) { return e.message; } };
const max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f];     // 2^53 − 1
console.log(JSON.stringify({
  small: read(uvar, [0x2b]), two: read(uvar, [0x93, 0x08]),
  max: read(uvar, max), above: read(uvar, [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]),
  top: read(uvar, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]), long: read(uvar, [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
  zigzag: [0, 1, 2, 3, 4].map((z) => read(svar, [z])[0]),
  // layers: count 2, i 0 at -96250 (svar 192499), i 1 at Δ +31257 (svar 62514)
  layers: read(layers, [0x02, 0x00, 0xf3, 0xdf, 0x0b, 0x01, 0xb2, 0xe8, 0x03])[0],
  divided: -96250 / 100 + 31257 / 100,
}));
"""


def test_the_docs_javascript_reads_varints_exactly_and_sums_deltas_in_units():
    result = node(doc_javascript() + CHECKS)
    assert result["small"] == [43, 1] and result["two"] == [1043, 2]
    assert result["max"] == [2**53 - 1, 8]
    assert "above 2^53" in result["above"] and "above 2^53" in result["top"]
    assert "longer than 8 bytes" in result["long"]
    assert result["zigzag"] == [0, -1, 1, -2, 2]
    assert result["layers"] == [{"i": 0, "y": -962.5}, {"i": 1, "y": -649.93}]
    assert result["divided"] == -649.9300000000001, "why the doc sums units: dividing first drifts"


def test_the_pages_decoder_refuses_varints_above_2_53_and_sums_layers_in_units():
    module = (PUBLIC / "js" / "wire-v2.js").as_uri()
    result = node(f"""
import {{ WireV2Decoder }} from {json.dumps(module)};
const attempt = (bytes) => {{ try {{ return new WireV2Decoder().decode(new Uint8Array(bytes).buffer); }} catch (e) {{ return e.message; }} }};
// presence: viewers = 2^53 (refused), then 2^53 − 1 (read exactly)
const above = attempt([5, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10, 0]);
const max = attempt([5, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 0]);
// a frame with no rows: seq 1, t 0, sentAt 0, flags 0, phase 9 (unlisted), viewport 390 × 844, offset 0,
// contentHeight 0, rows 0, headers 0, background 0, layers -962.5 then Δ +312.57, indicator 0s
const frame = attempt([2, 1, 0, 0, 0, 9, 0xb0, 0xe1, 0x04, 0xe0, 0xa6, 0x0a, 0, 0, 0, 0, 0,
                       2, 0, 0xf3, 0xdf, 0x0b, 1, 0xb2, 0xe8, 0x03, 0, 0, 0, 0, 0]);
console.log(JSON.stringify({{ above, max: max.viewers, layers: frame.layers, phase: frame.phase }}));
""")
    assert "2^53" in result["above"]
    assert result["max"] == 2**53 - 1
    assert result["layers"] == [{"i": 0, "y": -962.5}, {"i": 1, "y": -649.93}]
    assert result["phase"] == "idle", "an unlisted phase reads as idle"
