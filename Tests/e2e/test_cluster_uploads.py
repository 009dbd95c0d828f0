"""Uploaded scenes in a cluster (docs/cluster.md, "Uploaded scenes"): a real Redis and three real
nodes. A scene uploaded to n0 is kept in Redis and served by every node (its bytes and its
images, byte for byte); a room made on n0 with it is viewed from n1 in real Chromium with the
right scene and images; when n0 is SIGKILLed, n1 takes the room over with the same scene and
rows, and the page keeps its picture. An upload while Redis is away is refused 503, kept nowhere,
and accepted and served by every node once Redis is back."""

from __future__ import annotations

import time
import urllib.error
import urllib.request

from cluster_helpers import Cluster
from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, fetched_paths, room,
)
from replica_session import assert_no_mismatch, move_a_row, wait_running
from server_helpers import Viewer, order, run
from upload_helpers import post_trail, trail_files


def get(node, path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(node.base_url + path, timeout=10) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def until_served(node, path: str, timeout: float = 10.0) -> bytes:
    """Polls every 20 ms until `node` answers 200 for `path` (it reads the upload from Redis
    when the announcement reaches it); returns the body."""
    deadline = time.monotonic() + timeout
    while True:
        status, body = get(node, path)
        if status == 200:
            return body
        if time.monotonic() > deadline:
            raise AssertionError(f"{node.base_url}{path} answered {status}")
        time.sleep(0.02)  # polling interval of the condition above


def picture(sc) -> dict:
    frame = sc.frame()
    return {"offset": round(frame["offset"], 2), "rows": [(r["id"], round(r["y"], 2)) for r in frame["rows"]]}


def test_an_uploaded_scene_is_served_by_every_node_and_survives_a_failover(browser, cluster, room, artifacts):
    n0, n1, n2 = cluster.nodes
    status, _, answer = post_trail(n0)
    answered = time.monotonic()
    assert status == 201, answer
    scene = answer["scene"]
    assert cluster.redis.command("SISMEMBER", "scrollcast:scenes", scene) == "1"
    files = {f.name: f.read_bytes() for f in trail_files()}
    kept = sum(len(data) for data in files.values())
    assert int(cluster.redis.command("GET", "scrollcast:scenes:bytes")) == kept

    # Every node serves the scene's bytes and its images, the same bytes as the node that took it.
    until_served(n1, f"/scenes/{scene}")
    learned_ms = (time.monotonic() - answered) * 1000
    scene_bytes = until_served(n0, f"/scenes/{scene}")
    images = {"layer-0.webp": files["trail-sun.webp"], "layer-1.png": files["trail-mountains.png"]}
    for node in (n0, n1, n2):
        assert until_served(node, f"/scenes/{scene}") == scene_bytes, node.base_url
        for role, data in images.items():
            assert until_served(node, f"/scene-images/{scene}/{role}") == data, (node.base_url, role)
    # The same upload to another node is the same scene, kept once.
    status, _, again = post_trail(n2)
    assert status == 200 and again["scene"] == scene and again["existing"], again
    assert int(cluster.redis.command("GET", "scrollcast:scenes:bytes")) == kept

    async def make_room():
        creator = await Viewer.join(n0.ws_url, room, scene=scene)
        _, _, snapshot = await creator.wait_type("snapshot")
        return creator, snapshot
    _, snapshot = run(make_room())   # its viewer dies with n0
    assert snapshot["sceneName"] == scene and cluster.owner_index(room) == 0

    # A page on n1 shows the room's uploaded scene and its images (from n1), replicated.
    context = browser.new_context()
    sc = ScrollcastPage(artifacts.watch(context.new_page(), "viewer-n1"), n1.base_url, room).open("&replica=on")
    sc.wait("s => s.joined && s.images.ready")
    assert sc.state("s.viewer").startswith("n1/") and sc.state("s.sceneName") == scene
    assert sc.state("s.images") == {"ready": True, "background": "none", "layers": ["loaded", "loaded"]}
    # The replica fetches the scene's bytes after its snapshot (page_fixtures.fetched_paths).
    wait_running(sc)
    wanted = [f"/scenes/{scene}", f"/scene-images/{scene}/layer-1.png"]
    paths = fetched_paths(sc.page, wanted)
    assert all(path in paths for path in wanted), paths
    move_a_row(sc)
    moved = cluster.stored_order(room)
    assert moved and moved != order(snapshot), "the move is stored in Redis"
    assert sc.state("s.order") == moved
    before = picture(sc)
    snapshots = sc.state("s.snapshots")

    async def take_over():
        await cluster.until_redis_settled()
        cluster.nodes[0].proc.kill()
        return await cluster.until_owner(room, lambda lease: lease[0] != "n0", timeout=5.0)
    new_owner, _ = run(take_over())
    assert new_owner in ("n1", "n2")
    # The page gets the room again from its new owner: the same scene, rows and picture.
    sc.wait("(s, n) => s.snapshots > n", snapshots)
    sc.wait_idle()
    assert sc.state("s.sceneName") == scene
    assert sc.state("s.order") == moved
    assert sc.state("s.images") == {"ready": True, "background": "none", "layers": ["loaded", "loaded"]}
    assert picture(sc) == before
    assert cluster.stored_order(room) == moved
    # And it still drives it, on the new owner, with its replica agreeing.
    sc.fling()
    sc.wait_idle()
    assert picture(sc)["offset"] != before["offset"]
    assert_no_mismatch(sc, "after the failover")
    print(f"uploaded scene {scene}: {kept} bytes in Redis, n1 served it {learned_ms:.0f} ms after n0's 201 "
          f"(polled every 20 ms); {new_owner} took the room over")
    context.close()


def test_an_upload_while_redis_is_away_is_refused_503_and_served_everywhere_once_it_is_back(
        server_factory, redis_server):
    # Its own two nodes: the rate limit raised, as the upload is tried until Redis answers again.
    cluster = Cluster(server_factory, redis_server, nodes=2, flags=("--uploads-per-minute", "600"))
    n0, n1 = cluster.nodes
    cluster.redis.kill()
    status, _, answer = post_trail(n0)
    assert status == 503, answer
    assert answer["errors"][0]["message"] == "the server cannot keep the scene now (its store cannot write): try again later"
    assert get(n0, "/scenes")[0] == 200
    cluster.redis.restart()
    assert cluster.redis.command("SCARD", "scrollcast:scenes") == "0", "nothing of it was kept"
    deadline = time.monotonic() + 10
    while status == 503:
        assert time.monotonic() < deadline, "the node never reached Redis again"
        time.sleep(0.1)  # the node's uploads connection reconnects with backoff; polled again
        status, _, answer = post_trail(n0)
    assert status == 201, answer
    scene = answer["scene"]
    # n1's scenes connection came back too, and read the upload.
    until_served(n1, f"/scenes/{scene}")
    until_served(n1, f"/scene-images/{scene}/layer-0.webp")
