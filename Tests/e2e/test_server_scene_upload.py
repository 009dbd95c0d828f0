"""`POST /scenes` against the real server (docs/scenes.md, "Uploads"): the answer names a scene
and a room, the same upload names the same scene, refusals are JSON with their status, a client
over its uploads per minute gets 429, and a room showing an uploaded scene comes back with it
after a restart (SQLite file in tmp_path)."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

from scene_files_helpers import drag_then_page_down
from server_helpers import RunningServer, Viewer, run
from test_recording_replay import masked, scrollcast
from upload_helpers import post_scene, post_trail, trail_files


def test_an_uploaded_scene_and_its_room_survive_a_restart_and_a_client_is_rate_limited(tmp_path):
    server = RunningServer("--uploads-per-minute", "3", data=tmp_path / "rooms.sqlite")
    try:
        status, _, first = post_trail(server)
        assert status == 201, first
        scene, room = first["scene"], first["room"]
        assert first["link"] == f"/?room={room}&scene={scene}" and not first["existing"]
        status, _, again = post_trail(server)
        assert status == 200 and again["scene"] == scene and again["room"] != room and again["existing"]
        status, _, wrong = post_scene(server, ("x.json", b"{"), [])
        assert status == 422 and wrong["errors"][0]["path"] == "$", wrong
        status, headers, limited = post_trail(server)
        assert status == 429 and headers["retry-after"] == "60", limited
        assert "more than 3 uploads in a minute" in limited["errors"][0]["message"]

        async def join_and_read():
            viewer = await Viewer.join(server.ws_url, room, scene=scene)
            _, _, snapshot = await viewer.wait_type("snapshot")
            await viewer.close()
            return snapshot
        before = run(join_and_read())
        assert before["sceneName"] == scene
        images = [layer["image"] for layer in before["scene"]["layers"]]
        served = [urllib.request.urlopen(f"{server.base_url}/{path}", timeout=10).read() for path in images]
        assert served == [trail_files()[1].read_bytes(), trail_files()[2].read_bytes()]

        server.stop()
        server.start(server.port)

        async def rejoin():
            # No scene named: the stored room brings its own.
            viewer = await Viewer.join(server.ws_url, room)
            _, _, snapshot = await viewer.wait_type("snapshot")
            await viewer.close()
            return snapshot
        after = run(rejoin())
        assert after["sceneName"] == scene and after["scene"] == before["scene"]
        assert [urllib.request.urlopen(f"{server.base_url}/{path}", timeout=10).read() for path in images] == served
    finally:
        server.stop()


def post_raw(server, body: bytes, headers: dict[str, str]):
    """POSTs `body` to /scenes as is; returns (status, body text)."""
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.putrequest("POST", "/scenes")
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders()
        if body:
            connection.send(body)
        reply = connection.getresponse()
        return reply.status, reply.read().decode()
    finally:
        connection.close()


def test_malformed_wrongly_typed_unmeasured_and_oversized_uploads_are_refused(scrollcast_server):
    status, text = post_raw(scrollcast_server, b"{}", {"Content-Type": "application/json", "Content-Length": "2"})
    assert status == 415 and "multipart/form-data" in text
    status, text = post_raw(scrollcast_server, b"--x\r\nno end",
                            {"Content-Type": "multipart/form-data; boundary=x", "Content-Length": "11"})
    assert status == 400 and "the form data cannot be read" in text
    # Refused by the transport before a byte of the body is read.
    status, text = post_raw(scrollcast_server, b"", {"Content-Type": "multipart/form-data; boundary=x"})
    assert status == 411 and "Content-Length is required" in text
    status, text = post_raw(scrollcast_server, b"", {"Content-Type": "multipart/form-data; boundary=x",
                                                     "Content-Length": str(16 * 1024 * 1024 + 64 * 1024 + 1)})
    assert status == 413 and f"at most {16 * 1024 * 1024 + 64 * 1024} are taken here" in text


def test_a_room_of_an_uploaded_scene_replays_bit_for_bit_from_its_recording_alone(server_factory, tmp_path, room_name):
    data = tmp_path / "rooms.sqlite"
    server = server_factory(data=data)
    status, _, answer = post_trail(server)
    assert status == 201, answer
    scene = answer["scene"]

    frames = run(drag_then_page_down(server.ws_url, room_name, scene))
    assert server.stop() == 0
    recording = tmp_path / "upload.jsonl"
    scrollcast("record", "--data", str(data), "--room", room_name, "--fps", "60", "--out", str(recording))
    header = json.loads(recording.read_text().splitlines()[0])
    assert header["scene"] == scene
    assert header["sceneFile"] == trail_files()[0].read_text()
    # No server, no folder: the recording carries its scene.
    replay = scrollcast("replay", str(recording))
    by_seq = {int(re.search(r'"seq":(\d+)', line).group(1)): line for line in replay.stdout.decode().splitlines()}
    received = [(int(re.search(r'"seq":(\d+)', raw).group(1)), raw) for raw in frames]
    assert len(received) > 20
    assert [seq for seq, raw in received if by_seq.get(seq) != masked(raw)] == []

    # A sceneFile that is not a good scene is refused with its errors.
    lines = recording.read_text().splitlines()
    lines[0] = json.dumps({**header, "sceneFile": "{\n  \"viewport\": 1\n}"})
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines) + "\n")
    refused = scrollcast("replay", str(broken), check=False)
    assert refused.returncode != 0 and "its sceneFile is not a good scene: sceneFile:2: $.viewport:" in refused.stderr.decode()
