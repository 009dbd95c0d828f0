"""`scrollcast --scenes DIR` (docs/scenes.md): the example scenes beside the built-in ones, a bad
file logged and left out, `join.scene` over a raw WebSocket, the scene's images served by the
server at paths it chooses with their true type, and the effects read off real frames with the
scene file's own numbers (background-scroll-indicator.txt, parallax-header.txt)."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import pytest

from scene_files_helpers import (  # noqa: F401  (fixtures are used by name)
    BAD_ERRORS, BAD_SCENE, EXAMPLES, FOLDER_ERROR, FOLDER_SCENE, GARBAGE_ERROR, GARBAGE_SCENE, example, log_lines,
    scenes_dir, scenes_server,
)
from server_helpers import ClientClock, RunningServer, Viewer, run, settle

NAMES = ["demo", "seed-table", "contacts", "photo-feed", "trail-guide"]
TOLERANCE = 0.02   # frames are written to 0.01 pt; expectations come from their rounded offsets


def fetch(server, path: str):
    try:
        with urllib.request.urlopen(server.base_url + path, timeout=10) as reply:
            return reply.status, reply.headers.get("content-type"), reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("content-type"), error.read()


def test_a_bad_file_is_logged_with_its_errors_and_left_out(scenes_server, scenes_dir, room_name):
    bad, garbage, folder = (scenes_dir / f"{name}.json" for name in (BAD_SCENE, GARBAGE_SCENE, FOLDER_SCENE))
    expected = [f"scene file left out: {bad} has 2 errors: {bad}:3: {BAD_ERRORS[0]} | {bad}:4: {BAD_ERRORS[1]}",
                f"scene file left out: {folder} has 1 error: {folder}: {FOLDER_ERROR}",
                f"scene file left out: {garbage} has 1 error: {garbage}:1: {GARBAGE_ERROR}"]
    added = [f"scene '{name}' added from {scenes_dir}" for name in ["contacts", "photo-feed", "trail-guide"]]
    lines = log_lines(scenes_server, *expected, *added)
    left_out = [line for line in lines if "scene file left out" in line]
    assert len(left_out) == 3, lines
    for needle, line in zip(expected, left_out):
        assert needle in line and " error " in line, (needle, line)
    for needle in added:
        assert any(needle in line for line in lines), needle

    async def scenario():
        for name in (BAD_SCENE, GARBAGE_SCENE, FOLDER_SCENE):
            viewer = await Viewer.join(scenes_server.ws_url, room_name, scene=name)
            _, _, error = await viewer.wait_type("error")
            assert await viewer.wait_closed() == (1008, error["message"])
            assert error["message"] == f"field 'scene' must be one of {', '.join(NAMES)}; got '{name}'"
    run(scenario())


def test_a_scenes_folder_that_cannot_be_listed_stops_the_server_before_it_listens(tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(RuntimeError) as failure:
        RunningServer("--scenes", str(missing))
    assert f"--scenes {missing}: cannot list the folder" in str(failure.value)


def test_the_scene_list_names_every_good_scene(scenes_server):
    status, kind, body = fetch(scenes_server, "/scenes")
    assert (status, kind) == (200, "application/json")
    assert json.loads(body) == {"default": "demo", "scenes": NAMES}


def test_join_scene_gets_the_file_scene_and_its_images_are_served_with_their_type(scenes_server, room_name):
    file = example("photo-feed")

    async def scenario():
        viewer = await Viewer.join(scenes_server.ws_url, room_name, scene="photo-feed")
        _, _, snapshot = await viewer.wait_type("snapshot")
        await viewer.close()
        return snapshot
    snapshot = run(scenario())
    assert snapshot["sceneName"] == "photo-feed"
    scene = snapshot["scene"]
    assert scene["viewport"] == file["viewport"] and scene["insets"] == file["insets"]
    assert scene["headerHeight"] == file["headerHeight"]
    assert scene["rowCount"] == sum(len(s["rows"]) for s in file["sections"])
    assert [s["title"] for s in scene["sections"]] == [s["title"] for s in file["sections"]]
    assert [s["headerHeight"] for s in scene["sections"]] == [s["headerHeight"] for s in file["sections"]]
    first = file["sections"][0]["rows"][0]
    row = snapshot["frame"]["rows"][0]
    assert (row["title"], row["subtitle"], row["detail"], row["h"]) == (first["title"], first["subtitle"], first["detail"], first["height"])
    for sent, given in zip(scene["layers"], file["layers"]):
        assert {k: sent[k] for k in ("width", "height", "restingY", "pullFactor", "scrollFactor")} == \
            {k: given[k] for k in ("width", "height", "restingY", "pullFactor", "scrollFactor")}

    # Served where the server chose, with the type the content has, byte for byte the file.
    served = [(layer["image"], given["image"]) for layer, given in zip(scene["layers"], file["layers"])]
    served.append((scene["background"]["image"], file["background"]["image"]))
    types = {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}
    for path, source in served:
        assert path.startswith("scene-images/photo-feed/"), path
        status, kind, body = fetch(scenes_server, "/" + path)
        assert status == 200, path
        assert kind == types[source.rsplit(".", 1)[1]], (path, kind)
        assert body == (EXAMPLES / source).read_bytes(), path
    # Nothing else under those paths: not the source names, not a way out of the folder.
    for path in ["/scene-images/photo-feed/feed-sky.jpg", "/scene-images/photo-feed/../photo-feed.json",
                 "/scene-images/broken/background.png", "/photo-feed.json"]:
        assert fetch(scenes_server, path)[0] == 404, path


def test_a_scene_image_is_kept_and_revalidated_and_other_routes_are_never_cached(scenes_server):
    """docs/design.md, "Static files": a reload asks about a scene's images and gets 304s, not the
    images again; /scenes, /metrics and /healthz stay `no-store`."""
    path = f"{scenes_server.base_url}/scene-images/photo-feed/background.png"
    with urllib.request.urlopen(path, timeout=10) as reply:
        headers, body = reply.headers, reply.read()
    assert headers["cache-control"] == "no-cache" and headers["etag"].startswith('"c-') and body
    for tags, expected in [(headers["etag"], 304), (f'"other", W/{headers["etag"]}', 304), ('"other"', 200)]:
        request = urllib.request.Request(path, headers={"If-None-Match": tags})
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                status, again = reply.status, reply.read()
        except urllib.error.HTTPError as error:
            status, again = error.code, error.read()
        assert status == expected and again == (b"" if expected == 304 else body), tags
    other = f"{scenes_server.base_url}/scene-images/photo-feed/layer-3.png"
    with urllib.request.urlopen(other, timeout=10) as reply:
        assert reply.headers["etag"] != headers["etag"], "each image its own tag"
    for route in ["/scenes", "/metrics", "/healthz"]:
        with urllib.request.urlopen(scenes_server.base_url + route, timeout=10) as reply:
            assert reply.headers["cache-control"] == "no-store" and "etag" not in reply.headers, route


def test_a_file_scene_room_is_rejoined_with_its_scene(scenes_server, room_name):
    async def scenario():
        creator = await Viewer.join(scenes_server.ws_url, room_name, scene="contacts")
        await creator.wait_type("snapshot")
        other = await Viewer.join(scenes_server.ws_url, room_name)
        _, _, snapshot = await other.wait_type("snapshot")
        assert snapshot["sceneName"] == "contacts" and snapshot["scene"]["rowCount"] == 373
        assert [s["title"] for s in snapshot["scene"]["sections"]][:3] == ["A", "B", "C"]
        assert snapshot["scene"]["layers"] == [] and snapshot["scene"]["headerHeight"] == 0
        await other.close()
        await creator.close()
    run(scenario())


def background_offset(frame: dict, insets: dict, background_height: float) -> float:
    """background-scroll-indicator.txt: tableOffset × (bgContentH − bgFrameH) / (contentH − frameH),
    with the inset-adjusted table values (docs/protocol.md)."""
    height = frame["viewport"]["height"]
    table = frame["contentHeight"] + insets["top"] + insets["bottom"]
    return (frame["offset"] + insets["top"]) * (background_height - height) / (table - height)


def layer_y(frame: dict, insets: dict, layer: dict) -> float:
    """parallax-header.txt: restingY − overscroll × (pull factor when pulled down, else scroll factor)."""
    overscroll = frame["offset"] + insets["top"]
    factor = layer.get("pullFactor", 1 / 3) if overscroll < 0 else layer.get("scrollFactor", 1)
    return insets["top"] + layer.get("restingY", -150) - overscroll * factor


def worst(frames, expected, actual) -> float:
    return max(abs(expected(f) - actual(f)) for f in frames)


def test_frames_follow_the_seed_formulas_with_the_scene_files_numbers(scenes_server, room_name):
    file = example("photo-feed")
    insets, layers, background = file["insets"], file["layers"], file["background"]["height"]

    async def scenario():
        viewer = await Viewer.join(scenes_server.ws_url, room_name, scene="photo-feed")
        await viewer.wait_type("snapshot")
        clock = ClientClock()
        # Pulled down and held: the pull factors.
        start = len(viewer.received)
        await viewer.input("pointerDown", clock.now(), x=200, y=300)
        for i in range(1, 13):
            await asyncio.sleep(0.016)
            await viewer.input("pointerMove", clock.now(), x=200, y=300 + 20 * i)
        await viewer.wait_type("frame", start=start, where=lambda f: f["offset"] + insets["top"] < -60)
        last = await viewer.input("pointerUp", clock.now(), x=200, y=540)
        await settle(viewer, last, start)
        # Scrolled down a page at a time: the scroll factors and the background.
        for _ in range(3):
            last = await viewer.input("key", clock.now(), key="pageDown")
            await settle(viewer, last, len(viewer.received))
        frames = [obj for _, obj in viewer.received[start:] if obj.get("type") == "frame"]
        await viewer.close()
        return frames
    frames = run(scenario())
    pulled = [f for f in frames if f["offset"] + insets["top"] < -20]
    scrolled = [f for f in frames if f["offset"] + insets["top"] > 300]
    assert len(pulled) >= 3 and len(scrolled) >= 3, (len(pulled), len(scrolled))
    assert max(f["offset"] for f in scrolled) > 1500

    def bg(f):
        return f["background"]["offset"]
    assert worst(frames, lambda f: background_offset(f, insets, background), bg) <= TOLERANCE
    for i, layer in enumerate(layers):
        def y(f, i=i):
            return next(l["y"] for l in f["layers"] if l["i"] == i)
        assert worst(frames, lambda f: layer_y(f, insets, layer), y) <= TOLERANCE, i

    # The same check with the demo's numbers reads badly: these frames are the file's scene.
    assert worst(scrolled, lambda f: background_offset(f, insets, 6000), bg) > 100
    seed = {"restingY": -150, "pullFactor": 1 / 3, "scrollFactor": 1}
    sky = lambda f: next(l["y"] for l in f["layers"] if l["i"] == 0)  # noqa: E731
    assert worst(pulled, lambda f: layer_y(f, insets, seed), sky) > 3
    assert worst(scrolled, lambda f: layer_y(f, insets, seed), sky) > 100


@pytest.mark.parametrize("name", ["trail-guide", "contacts"])
def test_each_example_scrolls_to_its_end_with_its_background_in_proportion(scenes_server, room_name, name):
    file = example(name)
    insets = file.get("insets", {"top": 44, "left": 0, "bottom": 0, "right": 0})

    async def scenario():
        viewer = await Viewer.join(scenes_server.ws_url, room_name, scene=name)
        _, _, snapshot = await viewer.wait_type("snapshot")
        start = len(viewer.received)
        last = await viewer.input("key", ClientClock().now(), key="end")
        index = await settle(viewer, last, start)
        frames = [obj for _, obj in viewer.received[start:index + 1] if obj.get("type") == "frame"]
        await viewer.close()
        return snapshot, frames
    snapshot, frames = run(scenario())
    end = frames[-1]
    assert snapshot["scene"]["viewport"] == file.get("viewport", {"width": 390, "height": 844})
    assert abs(end["offset"] - (end["contentHeight"] - end["viewport"]["height"] + insets["bottom"])) < 0.01
    if file.get("background"):
        # At the end the background has scrolled exactly to its own end.
        assert abs(end["background"]["offset"] - (file["background"]["height"] - end["viewport"]["height"])) <= TOLERANCE
        assert worst(frames, lambda f: background_offset(f, insets, file["background"]["height"]),
                     lambda f: f["background"]["offset"]) <= TOLERANCE
    else:
        assert all(f["background"] == {"offset": 0} for f in frames)
    for i, layer in enumerate(file.get("layers", [])):
        assert worst(frames, lambda f: layer_y(f, insets, layer),
                     lambda f, i=i: next(l["y"] for l in f["layers"] if l["i"] == i)) <= TOLERANCE
