"""Statements of docs/protocol.md checked against the real server: what a client written from the
document relies on. (The examples' bytes are checked in Tests/ScrollWireTests; HTTP refusals in
test_http_refusals.py; frames during a still hold in test_still_frames.py.)"""

from __future__ import annotations

import json
import re

import pytest

from server_helpers import REPO, Viewer, run

DOC = (REPO / "docs" / "protocol.md").read_text()


def doc_hex_block(type_byte: int) -> bytes:
    """The doc's version-2 example of a message type (its first hex block starting with that byte)."""
    for block in re.findall(r"```hex\n(.*?)```", DOC, re.S):
        data = bytes(int(pair, 16) for pair in " ".join(line.split("#", 1)[0] for line in block.splitlines()).split())
        if data[0] == type_byte:
            return data
    raise AssertionError(f"no hex example of type {type_byte}")


def doc_inline_input(input_id: int) -> dict:
    """The client message the doc quotes inline (`{"type": "input", "id": N, …}`) before an example."""
    match = re.search(r'`(\{"type": "input", "id": %d, [^`]*\})`' % input_id, DOC)
    assert match, f"the doc quotes no input {input_id}"
    return json.loads(match.group(1))


def test_the_v2_refused_and_error_examples_are_what_a_live_server_sends(scrollcast_server, room_name):
    async def scenario():
        viewer = await Viewer.join(scrollcast_server.ws_url, room_name, protocol="v2")
        await viewer.wait_type("snapshot")
        await viewer.send({"type": "input", "id": 45, "t": 1000, "kind": "pointerDown", "x": 150, "y": 400})
        await viewer.send(doc_inline_input(46))   # a second pointerDown while the first is held
        _, refused, _ = await viewer.wait_type("refused")
        await viewer.send(doc_inline_input(47))   # "x": "left"
        _, error, _ = await viewer.wait_type("error")
        code, _ = await viewer.wait_closed()
        return refused, error, code

    refused, error, code = run(scenario())
    assert refused == doc_hex_block(0x06)
    assert error == doc_hex_block(0x07)
    assert code == 1008


def test_row_ids_start_at_0_while_input_ids_start_at_1(scrollcast_server, room_name):
    async def scenario():
        viewer = await Viewer.join(scrollcast_server.ws_url, room_name)
        _, _, snapshot = await viewer.wait_type("snapshot")
        await viewer.send({"type": "input", "id": 0, "t": 1000, "kind": "key", "key": "end"})
        _, _, error = await viewer.wait_type("error")
        code, _ = await viewer.wait_closed()
        return snapshot, error, code

    snapshot, error, code = run(scenario())
    ids = [i for section in snapshot["scene"]["sections"] for i in section["rows"]]
    assert min(ids) == 0 and sorted(ids) == list(range(len(ids))) and len(ids) == snapshot["scene"]["rowCount"]
    assert error["message"] == "field 'id' must be an integer in 1…9007199254740991" and code == 1008


def test_the_seed_table_has_a_section_title_but_no_header(scrollcast_server, room_name):
    async def scenario():
        viewer = await Viewer.join(scrollcast_server.ws_url, room_name, scene="seed-table")
        _, _, snapshot = await viewer.wait_type("snapshot")
        last = await viewer.input("scrollToRow", 1000, section=0, row=10, position="middle", animated=False)
        _, _, frame = await viewer.wait_type("frame", where=lambda m: (m["input"] or {}).get("id") == last)
        return snapshot, frame

    snapshot, frame = run(scenario())
    assert snapshot["scene"]["sections"][0]["title"] == "Demo Table"
    assert snapshot["scene"]["sections"][0]["headerHeight"] == 0
    assert snapshot["frame"]["headers"] == [] and frame["headers"] == []


@pytest.mark.parametrize("scene, row, position, expect", [
    ("demo", 2, "middle", lambda r, top, h: r["y"] + r["h"] / 2 == top + (h - top) / 2),  # 444: the area's centre
    ("demo", 2, "top", lambda r, top, h: r["y"] == top),
    ("demo", 2, "bottom", lambda r, top, h: r["y"] + r["h"] == h),
    ("seed-table", 10, "middle", lambda r, top, h: r["y"] + r["h"] / 2 == top + (h - top) / 2),
    ("seed-table", 19, "middle", lambda r, top, h: r["y"] + r["h"] == h),                # clamped at the end
    ("seed-table", 0, "bottom", lambda r, top, h: r["y"] == top),                        # clamped at the top
], ids=["middle", "top", "bottom", "seed middle", "seed middle near the end", "seed bottom near the top"])
def test_scroll_to_row_positions_are_in_the_area_below_the_top_inset(scrollcast_server, room_name, scene, row, position,
                                                                      expect):
    section = 3 if scene == "demo" else 0

    async def scenario():
        viewer = await Viewer.join(scrollcast_server.ws_url, room_name, scene=scene)
        _, _, snapshot = await viewer.wait_type("snapshot")
        last = await viewer.input("scrollToRow", 1000, section=section, row=row, position=position, animated=False)
        _, _, frame = await viewer.wait_type("frame", where=lambda m: (m["input"] or {}).get("id") == last)
        refused = await viewer.input("scrollToRow", 1010, section=section, row=1000, position="top", animated=False)
        _, _, refusal = await viewer.wait_type("refused", where=lambda m: m["input"] == refused)
        return snapshot, frame, refusal

    snapshot, frame, refusal = run(scenario())
    top, height = snapshot["scene"]["insets"]["top"], frame["viewport"]["height"]
    shown = next(r for r in frame["rows"] if (r["s"], r["r"]) == (section, row))
    assert expect(shown, top, height), (shown, frame["offset"])
    assert refusal["code"] == "invalidInput", "a row out of range is refused"


def test_every_viewer_of_one_version_gets_the_same_bytes_for_a_seq(scrollcast_server, room_name):
    async def scenario():
        viewers = [await Viewer.join(scrollcast_server.ws_url, room_name, protocol=p) for p in ("v1", "v1", "v2", "v2")]
        for viewer in viewers:
            await viewer.wait_type("snapshot")
        last = await viewers[0].input("wheel", 1000, dx=0, dy=120, mode="pixel")
        for viewer in viewers:
            await viewer.wait_type("frame", where=lambda m: not m["animating"] and (m["input"] or {}).get("id") == last)
        return [{m["seq"]: raw for raw, m in viewer.received if m.get("type") == "frame"} for viewer in viewers]

    a1, b1, a2, b2 = run(scenario())
    common = set(a1) & set(b1) & set(a2) & set(b2)
    assert len(common) >= 5
    for seq in common:
        assert a1[seq] == b1[seq] and a2[seq] == b2[seq], seq
        assert a1[seq] != a2[seq] and isinstance(a2[seq], bytes)


def test_phase_and_animating_are_independent_and_motion_ends_with_animating_false(scrollcast_server, room_name):
    async def scenario():
        viewer = await Viewer.join(scrollcast_server.ws_url, room_name)
        await viewer.wait_type("snapshot")
        await viewer.input("pointerDown", 1000, x=150, y=500)
        for k in range(1, 6):
            await viewer.input("pointerMove", 1000 + 16 * k, x=150, y=500 - 20 * k)
        # The finger rests: the indicator stays, nothing moves.
        resting, _, _ = await viewer.wait_type("frame", where=lambda m: m["phase"] == "tracking" and not m["animating"])
        up = await viewer.input("pointerUp", 3000, x=150, y=400)
        done, _, _ = await viewer.wait_type("frame", start=resting, timeout=5,
                                            where=lambda m: (m["input"] or {}).get("id") == up and not m["animating"])
        await viewer.assert_silent(0.3)   # motion stopped: nothing until new input
        return [m for _, m in viewer.received[resting:done + 1] if m.get("type") == "frame"]

    frames = run(scenario())
    assert any(m["phase"] == "idle" and m["animating"] for m in frames), "the indicator fades out while idle"
    assert all(m["animating"] for m in frames[1:-1]) and not frames[-1]["animating"]
