"""docs/protocol.md's version-2 `batch` ("`batch` (`10`)"), read from the doc alone: its hex
examples decode, with the page's decoder (Public/js/wire-v2-batch.js, in node) and with this
suite's decoder written from the doc (wire_v2.py), to exactly the doc's JSON `batch` example;
short counts, Δ times read back to front, and the 8-byte fallback give the very doubles."""

from __future__ import annotations

import json
import struct
import re
import shutil
import subprocess

import pytest

from server_helpers import PUBLIC, REPO
from wire_v2 import WireV2Decoder, WireV2Error

NODE = shutil.which("node")


def doc_batches() -> tuple[dict, list[bytes]]:
    doc = (REPO / "docs" / "protocol.md").read_text()
    blocks = []
    for block in re.findall(r"```hex\n(.*?)```", doc, re.S):
        data = bytes.fromhex(" ".join(line.split("#")[0] for line in block.splitlines()))
        if data[:1] == b"\x10":
            blocks.append(data)
    section = doc[doc.index("### `batch`: the changes"):]
    example = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    return example, blocks


def test_the_docs_batch_bytes_read_from_the_doc_alone_give_its_json():
    example, blocks = doc_batches()
    assert len(blocks) == 2
    decoded = [WireV2Decoder().decode(b) for b in blocks]
    assert decoded[0] == example
    one = decoded[1]
    assert one["changes"] == 1043 and len(one["applied"]) == 1
    move = one["applied"][0]
    assert (move["t"], move["x"], move["y"]) == (20417.578125, 187.43, 655.25)
    assert one["complete"] == 20417.578125 + 8 / 256 == 20417.609375
    assert len(blocks[1]) < 27, "the earlier forms took 43 bytes for one move, then 27 with an f64 time"


def test_reserved_number_tags_and_a_repeated_first_viewer_are_refused():
    _, blocks = doc_batches()
    one = bytearray(blocks[1])
    for offset, value in ((8, 0x43), (4, 0x06), (9, one[9] | 0x80)):
        bad = bytearray(one)
        bad[offset] = value
        with pytest.raises(WireV2Error):
            WireV2Decoder().decode(bytes(bad))


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_pages_decoder_reads_the_docs_batches_to_the_same_doubles():
    example, blocks = doc_batches()
    module = (PUBLIC / "js" / "wire-v2.js").as_uri()
    script = f"""
import {{ WireV2Decoder }} from {json.dumps(module)};
const blocks = {json.dumps([list(b) for b in blocks])};
// Doubles as their exact bits, so that nothing is lost in printing.
const bits = (x) => {{ const v = new DataView(new ArrayBuffer(8)); v.setFloat64(0, x); return v.getBigUint64(0).toString(16); }};
const out = blocks.map((b) => new WireV2Decoder().decode(new Uint8Array(b).buffer));
console.log(JSON.stringify({{ messages: out, bits: out.map((m) => [bits(m.complete), ...m.applied.flatMap((e) => [bits(e.t), bits(e.x), bits(e.y)])]) }}));
"""
    result = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    page = json.loads(result.stdout)
    assert page["messages"][0] == example
    python = [WireV2Decoder().decode(b) for b in blocks]
    assert page["messages"] == python
    for message, bits in zip(python, page["bits"]):
        numbers = [message["complete"]] + [x for e in message["applied"] for x in (e["t"], e["x"], e["y"])]
        assert bits == [format(struct.unpack(">Q", struct.pack(">d", x))[0], "x") for x in numbers]
