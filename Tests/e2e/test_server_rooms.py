"""Rooms over the real server: shared frames, late joiners, room isolation, idle silence, claims."""

from __future__ import annotations

import asyncio

from server_helpers import ClientClock, Viewer, drag, join_two_viewers, move_row, run, settle


def frames_by_seq(viewer: Viewer) -> dict[int, str]:
    return {obj["seq"]: raw for raw, obj in viewer.frames()}


def test_snapshot_first_then_nothing_until_input(scrollcast_server, room_name):
    async def scenario():
        viewer = await Viewer.join(scrollcast_server.ws_url, room_name, client="e2e")
        _, _, snapshot = await viewer.wait_type("snapshot")
        assert viewer.types()[0] == "snapshot"
        assert snapshot["protocol"] == 1 and snapshot["room"] == room_name
        assert snapshot["viewer"].startswith("v") and snapshot["viewers"] == 1 and snapshot["driver"] is None
        assert snapshot["scene"]["sections"] and snapshot["frame"]["rows"]
        await viewer.assert_silent(1.0)
        await viewer.close()
    run(scenario())


def test_two_viewers_get_identical_frames_while_one_drags(scrollcast_server, room_name):
    async def scenario():
        a, b, _ = await join_two_viewers(scrollcast_server.ws_url, room_name)
        last_input = await drag(a, ClientClock(), x=200, y0=700, y1=300)
        await settle(a, last_input)
        last_a = a.frames()[-1][1]["seq"]
        await b.wait_type("frame", where=lambda f: f["seq"] >= last_a)
        fa, fb = frames_by_seq(a), frames_by_seq(b)
        common = set(fa) & set(fb)
        assert len(common) >= 3, (sorted(fa), sorted(fb))
        assert all(fa[s] == fb[s] for s in common), "same seq must be the same bytes for every viewer"
        assert sorted(fa) == sorted(set(fa)), "seq increases"
        # The frames name the driver's inputs, and the drag moved the content.
        driver = next(obj for _, obj in a.received if obj["type"] == "snapshot")["viewer"]
        named = [obj["input"] for _, obj in a.frames() if obj["input"]]
        assert named and all(i["viewer"] == driver for i in named)
        offsets = [obj["offset"] for _, obj in a.frames()]
        assert max(offsets) - min(offsets) > 100
        await a.close()
        await b.close()
    run(scenario())


def test_late_joiner_gets_snapshot_then_the_same_frames(scrollcast_server, room_name):
    async def scenario():
        a = await Viewer.join(scrollcast_server.ws_url, room_name)
        await a.wait_type("snapshot")
        clock = ClientClock()
        await drag(a, clock, x=200, y0=700, y1=500, release=False)
        await a.wait_type("frame")
        late = await Viewer.join(scrollcast_server.ws_url, room_name)
        _, _, snapshot = await late.wait_type("snapshot")
        assert late.types()[0] == "snapshot"
        assert snapshot["viewers"] == 2
        assert snapshot["driver"] == next(o for _, o in a.received if o["type"] == "snapshot")["viewer"]
        snapshot_seq = snapshot["frame"]["seq"]
        assert snapshot_seq >= 1
        # More of the same drag: the late joiner now sees the same frames.
        for i in range(6):
            await asyncio.sleep(0.016)
            await a.input("pointerMove", clock.now(), x=200, y=500 - 20 * (i + 1))
        up = await a.input("pointerUp", clock.now(), x=200, y=380)
        await settle(a, up)
        last = a.frames()[-1][1]["seq"]
        await late.wait_type("frame", where=lambda f: f["seq"] == last)
        late_frames = frames_by_seq(late)
        assert min(late_frames) > snapshot_seq
        fa = frames_by_seq(a)
        assert all(fa[s] == raw for s, raw in late_frames.items() if s in fa)
        assert len(set(late_frames) & set(fa)) >= 2
        await a.close()
        await late.close()
    run(scenario())


def test_a_viewer_in_another_room_gets_none_of_the_frames(scrollcast_server, room_name):
    async def scenario():
        a = await Viewer.join(scrollcast_server.ws_url, room_name)
        other = await Viewer.join(scrollcast_server.ws_url, room_name + "-other")
        await a.wait_type("snapshot")
        await other.wait_type("snapshot")
        last_input = await drag(a, ClientClock(), x=200, y0=700, y1=300)
        await settle(a, last_input)
        await other.assert_silent(0.5)
        assert other.types() == ["snapshot"]
        await a.close()
        await other.close()
    run(scenario())


def test_an_idle_room_sends_nothing(scrollcast_server, room_name):
    async def scenario():
        a, b, _ = await join_two_viewers(scrollcast_server.ws_url, room_name)
        up = await drag(a, ClientClock(), x=200, y0=700, y1=200, steps=6)  # a fling
        await settle(a, up)
        last = a.frames()[-1][1]["seq"]
        await b.wait_type("frame", where=lambda f: f["seq"] == last)
        await asyncio.gather(a.assert_silent(1.0), b.assert_silent(1.0))
        await a.close()
        await b.close()
    run(scenario())


def test_a_second_viewers_drag_is_refused_while_the_first_drags(scrollcast_server, room_name):
    async def scenario():
        a, b, snap_a = await join_two_viewers(scrollcast_server.ws_url, room_name)
        clock_a, clock_b = ClientClock(), ClientClock()
        await a.input("pointerDown", clock_a.now(), x=200, y=700)
        await b.wait_type("presence", where=lambda p: p["driver"] == snap_a["viewer"])
        start = len(a.received)
        refused_id = await b.input("pointerDown", clock_b.now(), x=100, y=400)
        _, _, refused = await b.wait_type("refused")
        assert refused["input"] == refused_id
        assert snap_a["viewer"] in refused["reason"]
        wheel_id = await b.input("wheel", clock_b.now(), dx=0, dy=120, mode="pixel")
        await b.wait_type("refused", where=lambda r: r["input"] == wheel_id)
        # Nothing of b's was mixed in: every frame names a's inputs.
        await a.input("pointerMove", clock_a.now(), x=200, y=600)
        up = await a.input("pointerUp", clock_a.now(), x=200, y=600)
        await b.wait_type("presence", where=lambda p: p["driver"] is None)
        await settle(a, up, start)
        assert all(f["input"]["viewer"] == snap_a["viewer"] for _, f in a.frames() if f["input"])
        # Once the gesture ends, b may drive.
        b_id = await b.input("pointerDown", clock_b.now(), x=100, y=400)
        _, _, frame = await b.wait_type("frame", where=lambda f: f["input"] and f["input"]["id"] == b_id
                                        and f["input"]["viewer"] != snap_a["viewer"])
        await b.input("pointerUp", clock_b.now(), x=100, y=400)
        await a.close()
        await b.close()
    run(scenario())


def test_a_driver_disconnecting_mid_drag_frees_the_room(scrollcast_server, room_name):
    async def scenario():
        a, b, snap_a = await join_two_viewers(scrollcast_server.ws_url, room_name)
        await drag(a, ClientClock(), x=200, y0=700, y1=500, release=False)
        await b.wait_type("presence", where=lambda p: p["driver"] == snap_a["viewer"])
        await a.close()
        await b.wait_type("presence", where=lambda p: p["driver"] is None and p["viewers"] == 1)
        clock = ClientClock()
        b_id = await b.input("pointerDown", clock.now(), x=100, y=400)
        await b.wait_type("frame", where=lambda f: f["input"] and f["input"]["id"] == b_id)
        assert not [o for _, o in b.received if o["type"] == "refused"]
        await b.input("pointerUp", clock.now(), x=100, y=400)
        await b.close()
    run(scenario())


def test_row_move_reaches_every_viewer(scrollcast_server, room_name):
    async def scenario():
        a, b, snapshot = await join_two_viewers(scrollcast_server.ws_url, room_name)
        # A row fully on screen, held, dragged three rows down and dropped.
        row, up = await move_row(a, snapshot)
        _, _, moved_a = await a.wait_type("rowMoved")
        _, _, moved_b = await b.wait_type("rowMoved")
        assert moved_a == moved_b
        assert moved_a["rowId"] == row["id"]
        assert moved_a["from"] != moved_a["to"]
        assert moved_a["version"] == 1
        assert moved_a["by"] == snapshot["viewer"]
        # A late joiner's snapshot has the new order.
        await settle(a, up)
        late = await Viewer.join(scrollcast_server.ws_url, room_name)
        _, _, late_snapshot = await late.wait_type("snapshot")
        to = moved_a["to"]
        assert late_snapshot["scene"]["sections"][to["s"]]["rows"][to["r"]] == row["id"]
        for v in (a, b, late):
            await v.close()
    run(scenario())
