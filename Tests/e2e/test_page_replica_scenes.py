"""The replica with any scene (docs/wasm.md, "Any scene"): a page in a room of a file scene
(`--scenes`) and one in a room of an uploaded scene run the engine in WebAssembly, built from the
scene's bytes (`GET /scenes/NAME`), and every server frame they receive through a fling and a row
move is identical to the replica's."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from measures_session import FLING
from page_fixtures import ScrollcastPage, artifacts, browser_type_launch_args, room  # noqa: F401
from replica_session import assert_no_mismatch, move_a_row, replica, wait_running
from scene_files_helpers import scenes_dir, scenes_server  # noqa: F401
from upload_helpers import post_trail


def get(server, path: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(server.base_url + path, timeout=20) as reply:
            return reply.status, reply.headers["Content-Type"], reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


def test_the_server_serves_each_scene_as_bytes_and_refuses_an_unknown_one(scenes_server):
    sizes = {}
    for name in ["demo", "photo-feed", "contacts", "trail-guide"]:
        status, kind, body = get(scenes_server, f"/scenes/{name}")
        assert (status, kind) == (200, "application/octet-stream"), name
        assert body[0] == 1, name  # SceneBytes' version
        sizes[name] = len(body)
    # The 373 rows of `contacts` take more than the 24 of `photo-feed`, the demo's 3,000 more still.
    assert sizes["demo"] > sizes["contacts"] > sizes["photo-feed"], sizes
    for path in ["/scenes/broken", "/scenes/nothing", "/scenes/", "/scenes/photo-feed.json"]:
        assert get(scenes_server, path)[0] == 404, path


@pytest.mark.parametrize("kind", ["file", "upload"])
def test_a_page_replicates_a_file_or_an_uploaded_scene(page, scenes_server, room, artifacts, kind):
    if kind == "file":
        scene = "contacts"   # 373 rows in 24 sections, a background; the upload has layers
    else:
        status, _, answer = post_trail(scenes_server)
        assert status in (200, 201), answer
        scene = answer["scene"]
    artifacts.watch(page, kind)
    sc = ScrollcastPage(page, scenes_server.base_url, room).open(f"&scene={scene}&replica=on")
    assert sc.state("s.sceneName") == scene
    wait_running(sc)
    # Made in the page and tried again if the release had no speed: real mouse moves on a loaded
    # machine came so far apart that a fresh-clone run's drag never flew, in either scene.
    sc.fling(*FLING)
    sc.wait_idle()
    move_a_row(sc)
    sc.wait("s => s.replica.running && s.replica.compared > 0")
    assert_no_mismatch(sc, f"{kind} scene {scene}")
    r = replica(sc)
    assert r["compared"] > 0 and r["running"], r
