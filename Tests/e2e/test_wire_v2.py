"""Protocol version 2 against the real server: a raw client offering `scrollcast.v2`, decoding
binary messages per docs/protocol.md (wire_v2.py), sees the same motion as version-1 viewers of
the same room."""

from __future__ import annotations

import asyncio

from server_helpers import ClientClock, Viewer, drag, run, settle


def frames_by_seq(viewer: Viewer) -> dict[int, dict]:
    frames = {}
    for _, obj in viewer.received:
        if obj.get("type") == "frame":
            frames[obj["seq"]] = obj
        elif obj.get("type") == "snapshot":
            frames[obj["frame"]["seq"]] = obj["frame"]
    return frames


def test_a_v2_client_gets_binary_messages_it_decodes_from_the_doc(scrollcast_server, room_name):
    async def scenario():
        v2 = await Viewer.join(scrollcast_server.ws_url, room_name, protocol="v2")
        assert v2.ws.subprotocol == "scrollcast.v2"
        _, raw, snapshot = await v2.wait_type("snapshot")
        assert isinstance(raw, bytes)
        assert snapshot["protocol"] == 2 and snapshot["sceneName"] == "demo"
        assert snapshot["scene"]["rowCount"] == 3000
        assert [row["title"] for row in snapshot["frame"]["rows"]], "the snapshot's frame has its texts"
        # Clients still speak JSON: an input gets a frame naming it.
        input_id = await v2.input("wheel", 1000, dx=0, dy=120, mode="pixel")
        me = snapshot["viewer"]
        await v2.wait_type("frame", where=lambda f: (f.get("input") or {}).get("viewer") == me
                           and f["input"]["id"] == input_id)
        assert all(isinstance(raw, bytes) for raw, _ in v2.received)
        await v2.close()
    run(scenario())


def test_v1_and_v2_viewers_of_one_room_see_the_same_frames(scrollcast_server, room_name):
    async def scenario():
        url = scrollcast_server.ws_url
        driver = await Viewer.join(url, room_name)
        watcher_v1 = await Viewer.join(url, room_name)
        watcher_v2 = await Viewer.join(url, room_name, protocol="v2")
        for viewer in (driver, watcher_v1, watcher_v2):
            await viewer.wait_type("snapshot")
        clock = ClientClock()
        # A fling down the long demo table: many rows come into view for the first time.
        last = await drag(driver, clock, x=200, y0=750, y1=150, steps=10, interval=0.012)
        await settle(driver, last)
        # The v2 viewer drives too (its input is JSON like anyone's).
        v2_clock = ClientClock(start=50_000)
        last_v2 = await drag(watcher_v2, v2_clock, x=200, y0=300, y1=600, steps=8, interval=0.016)
        _, _, snapshot = await watcher_v2.wait_type("snapshot")
        me = snapshot["viewer"]
        await watcher_v2.wait_type("frame", timeout=30, where=lambda f: f["animating"] is False
                                   and (f.get("input") or {}).get("viewer") == me and f["input"]["id"] >= last_v2)
        await asyncio.sleep(0.3)
        v1_frames = frames_by_seq(watcher_v1)
        v2_frames = frames_by_seq(watcher_v2)
        common = sorted(set(v1_frames) & set(v2_frames))
        assert len(common) > 30, (len(v1_frames), len(v2_frames))
        for seq in common:
            assert v2_frames[seq] == v1_frames[seq], f"seq {seq} differs"
        # The texts arrived once each, as the doc says.
        sent = [row["id"] for _, obj in watcher_v2.received if obj.get("type") == "texts" for row in obj["rows"]]
        assert len(sent) == len(set(sent)) and len(sent) > 10
        # Both saw the room end at the same frame.
        assert max(v1_frames) == max(v2_frames)
        for viewer in (driver, watcher_v1, watcher_v2):
            await viewer.close()
    run(scenario())


def test_a_late_v2_joiner_draws_the_frames_after_its_snapshot(scrollcast_server, room_name):
    async def scenario():
        url = scrollcast_server.ws_url
        driver = await Viewer.join(url, room_name, protocol="v2")
        await driver.wait_type("snapshot")
        clock = ClientClock()
        last = await drag(driver, clock, x=200, y0=750, y1=100, steps=10, interval=0.012)
        late = await Viewer.join(url, room_name, protocol="v2")
        await settle(driver, last)
        await late.wait_type("snapshot")
        await asyncio.sleep(0.3)
        early_frames, late_frames = frames_by_seq(driver), frames_by_seq(late)
        assert late_frames and set(late_frames) <= set(early_frames)
        for seq, frame in late_frames.items():
            assert frame == early_frames[seq]
        await driver.close()
        await late.close()
    run(scenario())
