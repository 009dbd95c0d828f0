"""`POST /scenes` against the real server (docs/scenes.md, "Uploads"): the answer names a scene
and a room, the same upload names the same scene, refusals are JSON with their status, a client
over its uploads per minute gets 429, and a room showing an uploaded scene comes back with it
after a restart (SQLite file in tmp_path)."""

from __future__ import annotations

import urllib.error
import urllib.request

from server_helpers import RunningServer, Viewer, run
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


def test_malformed_and_wrongly_typed_uploads_are_refused_as_json(scrollcast_server):
    request = urllib.request.Request(scrollcast_server.base_url + "/scenes", data=b"{}", method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(request, timeout=10)
        raise AssertionError("accepted")
    except urllib.error.HTTPError as error:
        assert error.code == 415
        assert "multipart/form-data" in error.read().decode()
    request = urllib.request.Request(scrollcast_server.base_url + "/scenes", data=b"--x\r\nno end", method="POST",
                                     headers={"Content-Type": "multipart/form-data; boundary=x"})
    try:
        urllib.request.urlopen(request, timeout=10)
        raise AssertionError("accepted")
    except urllib.error.HTTPError as error:
        assert error.code == 400
        assert "the form data cannot be read" in error.read().decode()
