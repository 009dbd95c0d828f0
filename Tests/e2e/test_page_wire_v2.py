"""The page speaks protocol version 2 (binary frames, texts once) and draws exactly what a
version-1 page draws: one page forced to version 1 (?protocol=v1) and one on the default (v2)
watch the same room, and after motion their canvases match pixel for pixel."""

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, assert_same_pictures_through_a_fling_and_a_hold, browser_type_launch_args,
    page_server, room,
)


def test_a_v1_page_and_a_v2_page_draw_the_same_pixels(browser, page_server, room, artifacts):
    ctx_v1, ctx_v2 = browser.new_context(), browser.new_context()
    v1 = ScrollcastPage(artifacts.watch(ctx_v1.new_page(), "v1"), page_server.base_url, room).open("&protocol=v1")
    v2 = ScrollcastPage(artifacts.watch(ctx_v2.new_page(), "v2"), page_server.base_url, room).open()
    assert v1.state("s.protocol") == "scrollcast.v1"
    assert v2.state("s.protocol") == "scrollcast.v2"
    v1.wait("s => s.viewers === 2")
    v2.wait("s => s.viewers === 2")
    v1.wait_idle()
    v2.wait_idle()

    # A fling from the v2 page, then a drag held from the v1 page.
    assert_same_pictures_through_a_fling_and_a_hold(v1, v2, artifacts, ("v1", "v2"), flinger=v2, holder=v1)
    ctx_v1.close()
    ctx_v2.close()


def test_the_page_offers_v2_first_and_falls_back_to_v1(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    assert sc.state("s.protocol") == "scrollcast.v2"
    offered = page.evaluate("""async () => {
        const { SUBPROTOCOLS } = await import('./js/connection.js');
        return SUBPROTOCOLS; }""")
    assert offered == ["scrollcast.v2", "scrollcast.v1"]
    assert sc.frame()["rows"][0]["title"], "rows have their texts"


def doc_examples():
    """The hex blocks of docs/protocol.md (bytes) and its JSON blocks (objects), in order."""
    import json
    import re

    from server_helpers import REPO
    doc = (REPO / "docs" / "protocol.md").read_text()
    hex_blocks = []
    for block in re.findall(r"```hex\n(.*?)```", doc, re.S):
        data = " ".join(line.split("#", 1)[0] for line in block.splitlines())
        hex_blocks.append(bytes(int(pair, 16) for pair in data.split()))
    json_blocks = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", doc, re.S)]
    return hex_blocks, json_blocks


def test_the_page_decoder_reads_the_docs_examples_as_the_doc_says(page, page_server, room, artifacts):
    from wire_v2 import WireV2Decoder
    artifacts.watch(page)
    ScrollcastPage(page, page_server.base_url, room).open()
    hex_blocks, json_blocks = doc_examples()
    decoded = page.evaluate("""async (blocks) => {
        const { WireV2Decoder } = await import('./js/wire-v2.js');
        const decoder = new WireV2Decoder();
        return blocks.map((b) => decoder.decode(new Uint8Array(b).buffer));
    }""", [list(b) for b in hex_blocks])
    python = WireV2Decoder()
    assert decoded == [python.decode(b) for b in hex_blocks], "the page and a decoder written from the doc agree"
    # The v2 snapshot is version 1's snapshot example, but for its protocol number.
    v1_snapshot = next(b for b in json_blocks if b.get("type") == "snapshot")
    assert decoded[0] == {**v1_snapshot, "protocol": 2}
    # Each type's examples in their order: version 1's JSON and version 2's bytes decode alike.
    for kind in ("rowMoved", "presence", "refused", "error", "applied", "beat", "asked", "granted", "denied", "expired", "follow"):
        v1s = [b for b in json_blocks if b.get("type") == kind]
        v2s = [m for m in decoded if m["type"] == kind]
        assert v1s and v2s, kind
        for v1, v2 in zip(v1s, v2s):
            assert v1 == v2
    # Anything cut short or with bytes after its end is refused.
    errors = page.evaluate("""async (frame) => {
        const { WireV2Decoder } = await import('./js/wire-v2.js');
        const bytes = new Uint8Array(frame);
        const attempts = [bytes.slice(0, bytes.length - 1), new Uint8Array([...bytes, 0]), new Uint8Array([9])];
        return attempts.map((b) => { try { new WireV2Decoder().decode(b.buffer); return null; } catch (e) { return e.message; } });
    }""", list(hex_blocks[0]))
    assert all(errors), errors
