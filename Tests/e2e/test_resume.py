"""Resuming after a dropped connection (docs/protocol.md, "Resuming"), with the real server, the
real link emulator cutting the connection (`scrollcast-link`, POST /cut) and real clients: the
viewer comes back with `resumed`, the row move it missed and the latest frame, never a snapshot,
in versions 1 and 2, on one node and on another node of a cluster; what the server cannot vouch
for gets a snapshot; malformed resumes are refused; clients that never ask see nothing new."""

from __future__ import annotations

import asyncio
import json

import pytest

from resume_helpers import Position, answer, size, without_texts
from server_helpers import ClientClock, Viewer, drag, fling, metric, move_row, run


async def cut_mid_fling_and_mid_move_then_resume(ws_driver: str, ws_watch, proxy, room: str, protocol: str,
                                                 ws_resume=None):
    """A driver (direct) flings and moves a row; a watcher behind `proxy` is cut mid-fling and
    again while the row is lifted, resuming after each (on `ws_resume` the second time, if given).
    Returns the watcher's position, its resumed connections, and a fresh joiner's snapshot."""
    clock = ClientClock()
    driver = await Viewer.join(ws_driver, room)
    await driver.wait_type("snapshot")
    watcher = await Viewer.join(ws_watch, room, protocol=protocol, resumable=True)
    await watcher.wait_type("snapshot")
    position = Position()
    resumed = []

    # Mid-fling: the watcher has seen the fling start, then its link is cut.
    await fling(driver, clock, x=200, y0=700, y1=150, steps=6)
    await watcher.wait_type("frame", where=lambda f: f["phase"] == "decelerating")
    assert proxy.cut() >= 1
    await watcher.wait_closed(timeout=5)
    position.follow(watcher)
    # Away while the fling goes on.
    flinging_at, _, _ = await driver.wait_type("frame", where=lambda f: f["seq"] > position.seq + 5)
    back = await Viewer.open(ws_watch, protocol, decoder=watcher.decoder)
    await back.send({"type": "join", "room": room, "resume": position.resume()})
    await back.wait_type("resumed")
    resumed.append(back)

    # Mid-row-move: the row is lifted when the link is cut; it drops while the watcher is away.
    await driver.wait_type("frame", where=lambda f: not f["animating"], start=flinging_at, timeout=30)
    now = await Viewer.join(ws_driver, room)   # where rows are now, for the press
    _, _, here = await now.wait_type("snapshot")
    await now.close()
    moving = asyncio.create_task(move_row(driver, here, rows_down=3, clock=clock))
    await back.wait_type("frame", where=lambda f: f["lifted"] is not None)
    assert proxy.cut() >= 1
    await back.wait_closed(timeout=5)
    position.follow(back)
    await moving
    moved_at, _, _ = await driver.wait_type("rowMoved", timeout=15)
    again = await Viewer.open(ws_resume or ws_watch, protocol, decoder=back.decoder)
    await again.send({"type": "join", "room": room, "resume": position.resume()})
    await again.wait_type("resumed")
    await again.wait_type("rowMoved")
    resumed.append(again)
    # The rest after the drop, looked for after the last frame with the row lifted: frames may
    # show the drop before `rowMoved`, which waits for the move to be stored (docs/protocol.md;
    # in a cluster through Redis: a loaded run's rest came one frame before it), and while the
    # watcher resumed the rest may already have come, with a presence after it.
    lifted = [i for i, (_, m) in enumerate(driver.received[:moved_at]) if m.get("type") == "frame" and m["lifted"]]
    assert lifted, "the driver saw no frame with the row lifted before its rowMoved"
    _, _, last = await driver.wait_type("frame", where=lambda f: not f["animating"] and f["lifted"] is None,
                                        start=lifted[-1] + 1, timeout=30)
    await again.wait_type("frame", where=lambda f: f["seq"] >= last["seq"], timeout=15)
    position.follow(again)

    fresh = await Viewer.join(ws_driver, room, protocol=protocol)
    _, raw, truth = await fresh.wait_type("snapshot")
    for viewer in (driver, watcher, back, again, fresh):
        if viewer.close_code is None:
            await viewer.close()
    return position, resumed, truth, raw, last


@pytest.mark.parametrize("protocol", ["v1", "v2"])
def test_a_viewer_cut_mid_fling_and_mid_row_move_resumes_without_a_snapshot(scrollcast_server, link_proxy, room_name, protocol):
    proxy = link_proxy(scrollcast_server.port, "lan")
    before = metric(scrollcast_server, "scrollcast_resumes_total")

    position, resumed, truth, snapshot_raw, last = run(cut_mid_fling_and_mid_move_then_resume(
        scrollcast_server.ws_url, proxy.ws_url(), proxy, room_name, protocol))

    for connection in resumed:
        assert "snapshot" not in connection.types(), connection.types()
    first, second = (answer(c) for c in resumed)
    assert without_texts(second)[:2] == ["resumed", "rowMoved"] and second[0][1]["moves"] == 1
    assert position.order == [s["rows"] for s in truth["scene"]["sections"]], "the room's order"
    assert position.moves == 1 and position.seq >= last["seq"]
    snapshot_bytes = len(snapshot_raw.encode() if isinstance(snapshot_raw, str) else snapshot_raw)
    for label, messages in (("mid-fling", first), ("mid-row-move", second)):
        print(f"resume {protocol} {label}: {size(messages)} bytes ({without_texts(messages)}); "
              f"snapshot {snapshot_bytes} bytes")
        assert size(messages) <= 0.05 * snapshot_bytes
    assert metric(scrollcast_server, "scrollcast_resumes_total") - before == 2


@pytest.mark.parametrize("protocol", ["v1", "v2"])
def test_a_viewer_resumes_on_another_node_of_the_cluster(cluster, link_proxy, room_name, protocol):
    # n0 runs the room (the driver joins there first); the watcher watches from n1 and comes
    # back on n2, the owner unchanged.
    proxy = link_proxy(cluster.nodes[1].port, "lan")

    async def scenario():
        position, resumed, truth, raw, last = await cut_mid_fling_and_mid_move_then_resume(
            cluster.ws(0), proxy.ws_url(), proxy, room_name, protocol, ws_resume=cluster.ws(2))
        assert cluster.owner_index(room_name) == 0
        return position, resumed, truth, raw

    position, resumed, truth, raw = run(scenario())
    assert all("snapshot" not in c.types() for c in resumed), [c.types()[:12] for c in resumed]
    assert position.order == [s["rows"] for s in truth["scene"]["sections"]]
    snapshot_bytes = len(raw.encode() if isinstance(raw, str) else raw)
    for messages in (answer(c) for c in resumed):
        assert size(messages) <= 0.05 * snapshot_bytes, (size(messages), snapshot_bytes)
    assert metric(cluster.nodes[0], "scrollcast_resumes_total") == 2


@pytest.mark.parametrize("protocol", ["v1", "v2"])
def test_stale_or_forged_resumes_get_a_snapshot_and_malformed_ones_are_refused(scrollcast_server, server_factory,
                                                                             room_name, protocol):
    async def scenario():
        first = await Viewer.join(scrollcast_server.ws_url, room_name, protocol=protocol, resumable=True)
        _, _, snapshot = await first.wait_type("snapshot")
        life, seq = snapshot["life"], snapshot["frame"]["seq"]
        assert 1 <= life <= 2**53 - 1 and snapshot["moves"] == 0
        # The same room name on another server is another life.
        other = server_factory()
        elsewhere = await Viewer.join(other.ws_url, room_name, protocol=protocol, resume={"life": life, "seq": seq, "moves": 0})
        _, _, fresh = await elsewhere.wait_type("snapshot")
        assert fresh["life"] != life
        for resume in ({"life": life % (2**53 - 1) + 1, "seq": seq, "moves": 0},   # unknown life
                       {"life": life, "seq": seq + 1000, "moves": 0},             # a seq never sent
                       {"life": life, "seq": seq, "moves": 4}):                   # moves never made
            viewer = await Viewer.join(scrollcast_server.ws_url, room_name, protocol=protocol, resume=resume)
            _, _, got = await viewer.wait_type("snapshot")
            assert got["life"] == life and viewer.types()[0] == "snapshot", resume
            await viewer.close()
        # `moves` left out or null is 0 (no move applied), and a whole number is an integer
        # however it is written: this room made no move, so these resume.
        for resume in ({"life": life, "seq": seq, "moves": None}, {"life": life, "seq": seq},
                       {"life": float(life), "seq": float(seq), "moves": 0.0}):
            viewer = await Viewer.open(scrollcast_server.ws_url, protocol)
            await viewer.send({"type": "join", "room": room_name, "resume": resume})   # floats go as e.g. 1042.0
            _, _, got = await viewer.wait_for(lambda m: m.get("type") in ("resumed", "snapshot", "error"))
            assert got["type"] == "resumed" and got["life"] == life and got["from"] == seq, (resume, got)
            await viewer.close()
        for bad, error in ((7, "field 'resume' must be an object"),
                           ({"life": life, "moves": 0}, "missing field 'resume.seq'"),
                           ({"life": life, "seq": None, "moves": 0},
                            "field 'resume.seq' must be an integer in 0…9007199254740991"),
                           ({"life": 2**53, "seq": seq, "moves": 0},
                            "field 'resume.life' must be an integer in 1…9007199254740991"),
                           ({"life": life, "seq": -1, "moves": 0},
                            "field 'resume.seq' must be an integer in 0…9007199254740991")):
            viewer = await Viewer.join(scrollcast_server.ws_url, room_name, protocol=protocol, resume=bad)
            _, _, message = await viewer.wait_type("error")
            assert message["message"] == error
            code, _ = await viewer.wait_closed()
            assert code == 1008
        await first.close()
        await elsewhere.close()

    run(scenario())


def test_a_client_that_never_asks_sees_exactly_todays_messages(scrollcast_server, room_name):
    async def scenario():
        plain = await Viewer.join(scrollcast_server.ws_url, room_name)
        asking = await Viewer.join(scrollcast_server.ws_url, room_name, resumable=True)
        plain2 = await Viewer.join(scrollcast_server.ws_url, room_name, protocol="v2")
        asking2 = await Viewer.join(scrollcast_server.ws_url, room_name, protocol="v2", resumable=True)
        for viewer in (plain, asking, plain2, asking2):
            await viewer.wait_type("snapshot")
        await drag(plain, ClientClock(), x=200, y0=600, y1=300)
        for viewer in (plain, asking, plain2, asking2):
            await viewer.wait_type("frame", where=lambda f: not f["animating"], timeout=20)
        # The only difference a resumable join makes: two fields at the end of its snapshot.
        raw_plain, raw_asking = plain.received[0][0], asking.received[0][0]
        snapshot = json.loads(raw_asking)
        assert "life" not in json.loads(raw_plain) and "moves" not in json.loads(raw_plain)
        assert raw_asking.endswith(f',"life":{snapshot["life"]},"moves":0}}')
        assert json.loads(raw_asking[:raw_asking.index(',"life":')] + "}") == {
            **json.loads(raw_plain), "viewer": snapshot["viewer"], "viewers": snapshot["viewers"]}
        assert "life" not in plain2.received[0][1] and asking2.received[0][1]["life"] == snapshot["life"]
        for viewer in (plain, plain2):
            assert set(viewer.types()) <= {"snapshot", "frame", "presence", "texts"}, viewer.types()
        for viewer in (plain, asking, plain2, asking2):
            await viewer.close()

    run(scenario())
