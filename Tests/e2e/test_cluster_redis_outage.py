"""Redis killed and started again under load (docs/cluster.md, "When Redis is away"): no node
crashes or hangs, the node running the room keeps serving its own viewers, row moves are refused
with `unavailable` on every node while Redis is away, and within 5 s of Redis's return the
viewers on other nodes are served again (a fresh snapshot, then frames for their inputs)."""

from __future__ import annotations

import asyncio
import time


from cluster_helpers import join_on_every_node
from server_helpers import ClientClock, long_press_move, metric, run, until_metric

CONNECTED = "scrollcast_cluster_redis_connected"



async def keep_scrolling(viewer, clock: ClientClock, stop: asyncio.Event):
    """Wheel input at about 30/s until `stop`: load on the room while Redis comes and goes."""
    direction = 1
    while not stop.is_set():
        await viewer.input("wheel", clock.now(), dx=0, dy=40 * direction, mode="pixel")
        direction = -direction
        await asyncio.sleep(0.033)  # the pace of the load, not a synchronisation


def test_redis_killed_and_restarted_under_load(cluster, room_name):
    async def scenario():
        owner_viewer, remote_viewer, watcher = await join_on_every_node(cluster, room_name)
        assert cluster.owner_index(room_name) == 0
        snapshot = next(obj for _, obj in owner_viewer.received if obj["type"] == "snapshot")
        rows = [r for r in snapshot["frame"]["rows"] if 300 < r["y"] and r["y"] + r["h"] < snapshot["scene"]["viewport"]["height"] - 250]
        y0, y1 = rows[0]["y"] + rows[0]["h"] / 2, rows[3]["y"] + rows[3]["h"] / 2
        owner_clock, remote_clock = ClientClock(), ClientClock()
        stop = asyncio.Event()
        load = asyncio.create_task(keep_scrolling(owner_viewer, owner_clock, stop))
        try:
            await watcher.wait_type("frame", where=lambda f: f["input"] is not None)

            cluster.redis.kill()
            for node in cluster.nodes:
                await until_metric(node, CONNECTED, lambda v: v == 0)
            # The owner keeps serving its own viewer: frames for inputs sent after the kill.
            mark = len(owner_viewer.received)
            await owner_viewer.wait_type("frame", start=mark, where=lambda f: f["input"] is not None)
            # A move is refused with `unavailable` on the owner's node and on another node.
            stop.set()
            await load
            began, _ = await long_press_move(owner_viewer, owner_clock, y0, y1)
            _, _, refused = await owner_viewer.wait_type("refused", where=lambda r: r["input"] == began)
            assert refused["code"] == "unavailable"
            began, _ = await long_press_move(remote_viewer, remote_clock, y0, y1)
            _, _, refused = await remote_viewer.wait_type("refused", where=lambda r: r["input"] == began)
            assert refused["code"] == "unavailable"

            stop.clear()
            load = asyncio.create_task(keep_scrolling(owner_viewer, owner_clock, stop))
            marks = [len(v.received) for v in (remote_viewer, watcher)]
            cluster.redis.restart()
            back = time.monotonic()
            # Viewers on the other nodes get the room again, and frames of the inputs that go on.
            for viewer, mark in zip((remote_viewer, watcher), marks):
                index, _, _ = await viewer.wait_type("snapshot", start=mark, timeout=5)
                await viewer.wait_type("frame", start=index, where=lambda f: f["input"] is not None, timeout=5)
            resumed = time.monotonic() - back
            assert resumed <= 5, f"service resumed {resumed:.1f} s after Redis came back"
            stop.set()
            await load
            # Moves work again, from another node, and reach everyone.
            await until_metric(cluster.nodes[0], "scrollcast_store_writable", lambda v: v == 1)
            began, dropped = await long_press_move(remote_viewer, remote_clock, y0, y1)
            for viewer in (owner_viewer, remote_viewer, watcher):
                await viewer.wait_type("rowMoved", timeout=5)
            for node in cluster.nodes:
                assert node.proc.poll() is None, "no node crashed"
                assert metric(node, CONNECTED) == 1
            assert any("lost Redis" in line for line in cluster.nodes[1].stderr_lines)
            print(f"redis outage: viewers on other nodes served again {resumed * 1000:.0f} ms after Redis came back")
        finally:
            stop.set()
            await load
        for viewer in (owner_viewer, remote_viewer, watcher):
            assert viewer.close_code is None
            await viewer.close()
    run(scenario())
