"""Recordings (docs/recording.md) against the real server on a --data file: a session two viewers
drive in turn is written by `scrollcast record`, and `scrollcast replay` gives back every frame
either viewer received, byte for byte except `sentAt`, over exactly the room's frame numbers.
The page's "Download recording" route gives the same file as the CLI."""

from __future__ import annotations

import pytest

import asyncio
import json
import os
import re
import subprocess
import urllib.error
import urllib.request

from server_helpers import ClientClock, Viewer, drag, join_two_viewers, run, settle

SENT_AT = re.compile(r'"sentAt":[-+0-9.eE]+')


def masked(raw: str) -> str:
    """A frame message with its sentAt (the server's wall clock, not in recordings) as replay prints it."""
    masked_raw, count = SENT_AT.subn('"sentAt":0', raw, count=1)
    assert count == 1, raw[:200]
    return masked_raw


def scrollcast(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    out = subprocess.run([os.environ["SCROLLCAST_BIN"], *args], capture_output=True, timeout=120)
    if check:
        assert out.returncode == 0, (args, out.returncode, out.stderr.decode())
    return out


def get(url: str):
    """(status, headers (case-insensitive), body)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


async def hold_and_move_row(viewer: Viewer, clock: ClientClock, snapshot: dict, rows_down: int = 3) -> int:
    """Tap-and-hold a row fully on screen until it lifts, drag it `rows_down` rows lower and drop
    it (as test_durable_rooms.move_row does, on the viewer's own clock). Returns the last input's id."""
    rows = snapshot["frame"]["rows"]
    viewport = snapshot["scene"]["viewport"]
    candidates = [r for r in rows if 300 < r["y"] and r["y"] + r["h"] < viewport["height"] - 250]
    row, target = candidates[0], candidates[min(rows_down, len(candidates) - 1)]
    x, y = 150, row["y"] + row["h"] / 2
    t0 = clock.now()
    start = len(viewer.received)
    await viewer.input("pointerDown", t0, x=x, y=y)
    # A real long press: the server never maps t ahead of its own clock, so the hold must last.
    await asyncio.sleep(0.65)
    await viewer.input("pointerMove", max(clock.now(), t0 + 650), x=x, y=y + 1)
    await viewer.wait_type("frame", start=start, where=lambda f: f["lifted"] is not None)
    destination = target["y"] + target["h"] / 2 + 2
    for i in range(1, 11):
        await asyncio.sleep(0.016)
        await viewer.input("pointerMove", clock.now(), x=x, y=y + (destination - y) * i / 10)
    return await viewer.input("pointerUp", clock.now(), x=x, y=destination)


async def drive_session(ws_url: str, room: str) -> tuple[list[str], list[str], dict]:
    """Two viewers drive in turn. Returns every frame message each received, and the rowMoved."""
    a, b, snapshot = await join_two_viewers(ws_url, room)
    _, _, b_snapshot = await b.wait_type("snapshot")
    clock_a, clock_b = ClientClock(), ClientClock()

    # a: tap-and-hold a row and move it three rows down.
    start = len(a.received)
    up = await hold_and_move_row(a, clock_a, snapshot)
    _, _, moved = await a.wait_type("rowMoved")
    await b.wait_type("rowMoved")
    await settle(a, up, start)

    # b: a slow drag up, then a fling (fast moves, released while moving).
    start = len(b.received)
    last = await drag(b, clock_b, 200, 650, 450, steps=10)
    await settle(b, last, start)
    start = len(b.received)
    last = await drag(b, clock_b, 200, 700, 250, steps=6, interval=0.008)
    await settle(b, last, start)

    # a: the wheel, then keys.
    start = len(a.received)
    for _ in range(4):
        last = await a.input("wheel", clock_a.now(), dx=0, dy=3, mode="line")
        await asyncio.sleep(0.03)
    await settle(a, last, start)
    for key in ["pageDown", "arrowDown", "arrowUp", "end", "home"]:
        start = len(a.received)
        last = await a.input("key", clock_a.now(), key=key)
        await settle(a, last, start)

    # b: scroll to a row, animated, then one without animation.
    for fields in [dict(section=2, row=1, position="middle", animated=True),
                   dict(section=0, row=4, position="top", animated=False)]:
        start = len(b.received)
        last = await b.input("scrollToRow", clock_b.now(), **fields)
        await settle(b, last, start)

    # b leaves in the middle of a drag: the room cancels it itself (a `cancel` line).
    start = len(a.received)
    last = await drag(b, clock_b, 180, 500, 420, steps=5, release=False)
    await a.wait_type("frame", start=start, where=lambda f: f["input"] == {"viewer": b_snapshot["viewer"], "id": last})
    start = len(a.received)
    await b.close()
    await a.wait_type("frame", start=start, where=lambda f: f["animating"] is False)
    await a.assert_silent(0.3)

    frames_a = [raw for raw, _ in a.frames()]
    frames_b = [raw for raw, _ in b.frames()]
    for viewer in (a, b):
        assert "refused" not in viewer.types(), [o for _, o in viewer.received if o["type"] == "refused"]
    await a.close()
    return frames_a, frames_b, moved


@pytest.mark.long(19)
def test_a_recorded_session_replays_to_every_frame_the_viewers_received(server_factory, tmp_path, room_name):
    data = tmp_path / "rooms.sqlite"
    server = server_factory(data=data)
    frames_a, frames_b, moved = run(drive_session(server.ws_url, room_name))

    # The page's link, while the server runs (the route writes the store's queue first).
    status, headers, from_route = get(f"{server.base_url}/recording?room={room_name}")
    assert status == 200, from_route
    assert headers.get("content-type", "").startswith("application/x-ndjson")
    assert f'filename="{room_name}-life-1.scrollcast.jsonl"' in headers.get("content-disposition", "")

    assert server.stop() == 0, "SIGTERM writes what the store still queued"
    recording = tmp_path / "session.jsonl"
    scrollcast("record", "--data", str(data), "--room", room_name, "--fps", "60", "--out", str(recording))
    assert recording.read_bytes() == from_route, "the route and the CLI write the same recording"

    lines = recording.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["type"] == "recording" and header["version"] == 1 and header["room"] == room_name
    assert header["scene"] == "demo" and header["life"] == 1 and header["rowMoveVersion"] == 0
    assert moved["rowId"] in header["rowOrder"][moved["from"]["s"]]
    types = [re.match(r'\{"type":"(\w+)"', line).group(1) for line in lines[1:]]
    assert {"input", "frame", "cancel"} <= set(types)
    kinds = set(re.findall(r'"kind":"(\w+)"', recording.read_text()))
    assert {"pointerDown", "pointerMove", "pointerUp", "wheel", "key", "scrollToRow", "pointerCancel"} <= kinds

    replay = scrollcast("replay", str(recording)).stdout.decode().splitlines()
    seqs = [int(re.search(r'"seq":(\d+)', line).group(1)) for line in replay]
    received = [(int(re.search(r'"seq":(\d+)', raw).group(1)), raw) for raw in frames_a + frames_b]
    assert seqs == list(range(1, len(replay) + 1)), "frames 1…N, each once, in order"
    assert seqs[-1] == max(seq for seq, _ in received), "exactly the room's frames: the last is the last any viewer got"
    assert types.count("frame") == len(replay)
    by_seq = dict(zip(seqs, replay))
    mismatches = [seq for seq, raw in received if by_seq.get(seq) != masked(raw)]
    assert not mismatches, (len(mismatches), mismatches[:5], by_seq.get(mismatches[0]), masked(dict(received)[mismatches[0]]))
    assert len(received) > 200, len(received)
    assert all('"sentAt":0,' in line for line in replay)


def test_a_restored_rooms_latest_life_replays_from_the_order_it_came_back_with(server_factory, tmp_path, room_name):
    data = tmp_path / "rooms.sqlite"
    server = server_factory(data=data)

    async def first_life():
        a = await Viewer.join(server.ws_url, room_name)
        _, _, snapshot = await a.wait_type("snapshot")
        up = await hold_and_move_row(a, ClientClock(), snapshot)
        await a.wait_type("rowMoved")
        await settle(a, up, start=1)
        await a.close()

    run(first_life())
    assert server.stop() == 0
    server.start()

    async def second_life():
        a = await Viewer.join(server.ws_url, room_name)
        _, _, snapshot = await a.wait_type("snapshot")
        clock = ClientClock()
        last = await drag(a, clock, 200, 650, 300, steps=6, interval=0.008)
        await settle(a, last, start=1)
        frames = [raw for raw, _ in a.frames()]
        await a.close()
        return frames, [section["rows"] for section in snapshot["scene"]["sections"]]

    frames, order = run(second_life())
    assert server.stop() == 0
    recording = tmp_path / "life2.jsonl"
    scrollcast("record", "--data", str(data), "--room", room_name, "--out", str(recording))
    header = json.loads(recording.read_text().splitlines()[0])
    assert header["life"] == 2 and header["rowOrder"] == order and header["rowMoveVersion"] == 1
    assert header["framePeriod"] is None, "the CLI notes the frame period only when told --fps"
    replay = scrollcast("replay", str(recording)).stdout.decode().splitlines()
    # A viewer on a busy machine may skip frames (a gap in seq, docs/protocol.md): every frame
    # it got must be the replay's frame of that seq, and it must have got the room's last one.
    by_seq = {int(re.search(r'"seq":(\d+)', line).group(1)): line for line in replay}
    received = [(int(re.search(r'"seq":(\d+)', raw).group(1)), masked(raw)) for raw in frames]
    assert sorted(by_seq) == list(range(1, len(replay) + 1)), "frames 1…N, each once"
    assert received[-1][0] == len(replay), "the replay ends where the room came to rest"
    mismatches = [seq for seq, raw in received if by_seq[seq] != raw]
    assert not mismatches, (mismatches[:5], by_seq[mismatches[0]], dict(received)[mismatches[0]])

    first = tmp_path / "life1.jsonl"
    scrollcast("record", "--data", str(data), "--room", room_name, "--life", "1", "--out", str(first))
    assert json.loads(first.read_text().splitlines()[0])["life"] == 1
    assert scrollcast("replay", str(first)).stdout.count(b"\n") > 10


def test_record_and_replay_say_clearly_what_is_wrong(server_factory, tmp_path, room_name):
    missing = scrollcast("record", "--data", str(tmp_path / "none.sqlite"), "--room", "a", "--out", "-", check=False)
    assert missing.returncode == 1 and b"no such file: " in missing.stderr
    assert not (tmp_path / "none.sqlite").exists(), "record never creates the file"

    data = tmp_path / "rooms.sqlite"
    server = server_factory(data=data)

    async def quiet_join():
        v = await Viewer.join(server.ws_url, room_name)
        await v.wait_type("snapshot")
        await v.close()

    run(quiet_join())
    assert server.stop() == 0
    unknown = scrollcast("record", "--data", str(data), "--room", "nobody", "--out", "-", check=False)
    assert unknown.returncode == 1 and f"no room 'nobody' in {data}".encode() in unknown.stderr
    empty = scrollcast("record", "--data", str(data), "--room", room_name, "--out", "-", check=False)
    assert empty.returncode == 1 and b"has no log" in empty.stderr
    no_life = scrollcast("record", "--data", str(data), "--room", room_name, "--life", "3", "--out", "-", check=False)
    assert no_life.returncode == 1 and b"there is no life 3" in no_life.stderr

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"recording","version":1,"room":"a","scene":"demo","rowOrder":[]}\n{"type":"frame","seq":1}\n')
    refused = scrollcast("replay", str(bad), check=False)
    assert refused.returncode == 1
    assert f"{bad}: line 2: missing field 't'".encode() in refused.stderr
    newer = tmp_path / "newer.jsonl"
    newer.write_text('{"type":"recording","version":2,"room":"a","scene":"demo","rowOrder":[]}\n')
    assert b"line 1: recording version 2 is newer" in scrollcast("replay", str(newer), check=False).stderr


def test_the_route_answers_clearly_without_a_data_file_or_a_room(scrollcast_server):
    status, _, body = get(f"{scrollcast_server.base_url}/recording?room=demo")
    assert status == 404 and b"--data none" in body
    status, _, body = get(f"{scrollcast_server.base_url}/recording")
    assert status == 400 and b"name the room" in body


def test_a_locked_rooms_recording_needs_its_driver_key(server_factory, tmp_path, room_name):
    server = server_factory(data=tmp_path / "rooms.sqlite")
    locked, open_room = room_name + "-locked", room_name + "-open"

    async def scenario():
        creator = await Viewer.join(server.ws_url, locked, lock=True)
        _, _, snapshot = await creator.wait_type("snapshot")
        other = await Viewer.join(server.ws_url, open_room)
        await other.wait_type("snapshot")
        await creator.close()
        await other.close()
        return snapshot["driverKey"]

    key = run(scenario())
    url = f"{server.base_url}/recording?room={locked}"

    def get_with(url: str, authorization: str | None = None):
        request = urllib.request.Request(url, headers={"Authorization": authorization} if authorization else {})
        return get(request)

    status, headers, body = get(url)
    assert status == 401 and headers["www-authenticate"] == 'Bearer realm="scrollcast recording"', (status, body)
    assert b"is locked: its recording needs the room's driver key" in body
    for wrong in (get_with(url + "&key=" + "0" * 64), get_with(url, "Bearer " + key[::-1]), get_with(url + "&key=")):
        assert wrong[0] == 403 and b"does not unlock" in wrong[2], wrong
    for right in (get_with(url, "Bearer " + key), get_with(url + "&key=" + key), get_with(url, "bearer  " + key)):
        assert right[0] == 200, right
        assert json.loads(right[2].splitlines()[0])["room"] == locked
    status, _, body = get(f"{server.base_url}/recording?room={open_room}")
    assert status == 200 and json.loads(body.splitlines()[0])["room"] == open_room
