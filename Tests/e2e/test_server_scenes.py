"""Scene presets over the raw protocol: `join`'s `scene` picks the scene of a new room, the
snapshot's `sceneName` says which, and the seed's DemoTable (scroll-to-row-near-edges.txt:
20 rows "Option 0" … "Option 19" under a 44 pt navigation bar) scrolls rows 0, 10 and 19 to
"middle" entirely into view."""

from __future__ import annotations

import pytest

from server_helpers import ClientClock, Viewer, run, settle

VALID = "demo, seed-table"


@pytest.mark.parametrize("row", [0, 10, 19])
@pytest.mark.parametrize("animated", [False, True])
def test_seed_table_scrolls_row_to_middle_entirely_visible(scrollcast_server, room_name, row, animated):
    async def scenario():
        viewer = await Viewer.join(scrollcast_server.ws_url, room_name, scene="seed-table")
        _, _, snapshot = await viewer.wait_type("snapshot")
        assert snapshot["sceneName"] == "seed-table"
        scene = snapshot["scene"]
        assert scene["rowCount"] == 20 and [s["rows"] for s in scene["sections"]] == [list(range(20))]
        assert scene["insets"]["top"] == 44 and scene["layers"] == []
        assert [r["title"] for r in snapshot["frame"]["rows"]][:3] == ["Option 0", "Option 1", "Option 2"]

        start = len(viewer.received)
        sent = await viewer.input("scrollToRow", ClientClock().now(), section=0, row=row,
                                  position="middle", animated=animated)
        index = await settle(viewer, sent, start)
        frame = viewer.received[index][1]
        assert frame["input"]["id"] == sent
        match = [r for r in frame["rows"] if r["s"] == 0 and r["r"] == row]
        assert match, f"row {row} not in the resting frame"
        r = match[0]
        assert r["title"] == f"Option {row}"
        assert r["y"] >= scene["insets"]["top"], r
        assert r["y"] + r["h"] <= frame["viewport"]["height"], r
        if row == 19:
            assert r["detail"] == "✓"        # the seed's checked row
            assert r["y"] + r["h"] == frame["viewport"]["height"]   # clamped: at the very bottom
        if animated:
            moving = [obj for _, obj in viewer.received[start:index] if obj.get("type") == "frame"]
            assert row == 0 or any(f["animating"] for f in moving), "an animated scroll animates"
        await viewer.close()
    run(scenario())


def test_joining_an_existing_room_gets_its_scene(scrollcast_server, room_name):
    async def scenario():
        creator = await Viewer.join(scrollcast_server.ws_url, room_name, scene="seed-table")
        await creator.wait_type("snapshot")
        for fields in ({}, {"scene": "demo"}):
            other = await Viewer.join(scrollcast_server.ws_url, room_name, **fields)
            _, _, snapshot = await other.wait_type("snapshot")
            assert snapshot["sceneName"] == "seed-table", fields
            assert snapshot["scene"]["rowCount"] == 20
            await other.close()
        await creator.close()
    run(scenario())


def test_default_scene_is_the_demo(scrollcast_server, room_name):
    async def scenario():
        plain = await Viewer.join(scrollcast_server.ws_url, room_name)
        _, _, snapshot = await plain.wait_type("snapshot")
        assert snapshot["sceneName"] == "demo" and snapshot["scene"]["rowCount"] == 3000
        await plain.close()
    run(scenario())


@pytest.mark.parametrize("scene", ["seed", "SEED-TABLE", "large", "", 7])
def test_unknown_scene_is_refused_with_1008_naming_the_valid_ones(scrollcast_server, room_name, scene):
    async def scenario():
        viewer = await Viewer.join(scrollcast_server.ws_url, room_name, scene=scene)
        _, _, error = await viewer.wait_type("error")
        code, reason = await viewer.wait_closed()
        assert code == 1008
        if isinstance(scene, str):
            expected = f"field 'scene' must be one of {VALID}; got '{scene}'"
        else:
            expected = "field 'scene' must be a string"
        assert error["message"] == expected
        assert reason == expected
        assert viewer.types() == ["error"]
        # No room was made: a later plain join creates the demo.
        again = await Viewer.join(scrollcast_server.ws_url, room_name)
        _, _, snapshot = await again.wait_type("snapshot")
        assert snapshot["sceneName"] == "demo" and snapshot["viewers"] == 1
        await again.close()
    run(scenario())
