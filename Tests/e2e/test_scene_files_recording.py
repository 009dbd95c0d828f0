"""A room of a file scene on a --data file (docs/scenes.md): its recording replays, with
`replay --scenes DIR`, to the very frames its viewer received (without the folder, record and
replay say which scene they lack and how to give it); a restart brings the room back with its
scene, and a restart without the folder starts it afresh."""

from __future__ import annotations

import re

from scene_files_helpers import make_scenes_dir
from server_helpers import ClientClock, Viewer, drag, run, settle
from test_recording_replay import masked, scrollcast


def test_a_file_scene_room_replays_with_its_folder(server_factory, tmp_path, room_name):
    scenes = make_scenes_dir(tmp_path / "scenes")
    data = tmp_path / "rooms.sqlite"
    server = server_factory("--scenes", str(scenes), data=data)

    async def session():
        viewer = await Viewer.join(server.ws_url, room_name, scene="trail-guide")
        await viewer.wait_type("snapshot")
        clock = ClientClock()
        start = len(viewer.received)
        last = await drag(viewer, clock, 200, 700, 250, steps=6, interval=0.008)
        await settle(viewer, last, start)
        start = len(viewer.received)
        last = await viewer.input("key", clock.now(), key="pageDown")
        await settle(viewer, last, start)
        frames = [raw for raw, _ in viewer.frames()]
        await viewer.close()
        return frames
    frames = run(session())
    assert server.stop() == 0
    recording = tmp_path / "trail.jsonl"
    hint = "scene 'trail-guide', which this build's catalogue lacks (demo, seed-table); for a scene file's room, pass --scenes DIR"
    record = ["record", "--data", str(data), "--room", room_name, "--fps", "60", "--out", str(recording)]
    refused = scrollcast(*record, check=False)
    assert refused.returncode != 0 and hint in refused.stderr.decode()
    scrollcast(*record, "--scenes", str(scenes))

    without = scrollcast("replay", str(recording), check=False)
    assert without.returncode != 0
    assert "scene 'trail-guide' is not in this build's catalogue (demo, seed-table); for a scene file's room, pass --scenes DIR" \
        in without.stderr.decode()

    replay = scrollcast("replay", str(recording), "--scenes", str(scenes))
    assert b"scene file left out" in replay.stderr, "the folder's bad file is still reported"
    by_seq = {int(re.search(r'"seq":(\d+)', line).group(1)): line for line in replay.stdout.decode().splitlines()}
    received = [(int(re.search(r'"seq":(\d+)', raw).group(1)), raw) for raw in frames]
    assert len(received) > 20
    assert [seq for seq, raw in received if by_seq.get(seq) != masked(raw)] == []


def test_a_stored_room_comes_back_with_its_scene_file_and_afresh_without_it(server_factory, tmp_path, room_name):
    scenes = make_scenes_dir(tmp_path / "scenes")
    data = tmp_path / "rooms.sqlite"
    server = server_factory("--scenes", str(scenes), data=data)

    async def visit(**join):
        viewer = await Viewer.join(server.ws_url, room_name, **join)
        _, _, snapshot = await viewer.wait_type("snapshot")
        clock = ClientClock()
        start = len(viewer.received)
        last = await viewer.input("key", clock.now(), key="pageDown")
        await settle(viewer, last, start)
        await viewer.close()
        return snapshot
    assert run(visit(scene="contacts"))["sceneName"] == "contacts"
    assert server.stop() == 0
    server.start()
    again = run(visit())
    assert again["sceneName"] == "contacts" and again["frame"]["offset"] > 0, "restored with its scene, where it rested"

    # Restarted without the folder: the room cannot show its scene, so it starts afresh.
    assert server.stop() == 0
    server.flags = tuple(f for f in server.flags if f not in ("--scenes", str(scenes)))
    server.start()
    fresh = run(visit())
    assert fresh["sceneName"] == "demo" and fresh["frame"]["offset"] == -44
