"""A cluster losing the node that runs a room (docs/cluster.md, "Failover"): SIGKILL mid-fling.
Another node with viewers of the room takes its lease with a higher epoch, restores it from
Redis and numbers its frames on from the ones its viewers saw; viewers on surviving nodes keep
their connections throughout."""

from __future__ import annotations

import asyncio
import time


from cluster_helpers import join_on_every_node
from server_helpers import ClientClock, drag, move_row, order, run, settle



def test_killing_the_owner_mid_fling_hands_the_room_to_a_surviving_node(cluster, room_name):
    async def scenario():
        viewers = await join_on_every_node(cluster, room_name)
        owner, epoch = cluster.lease(room_name)
        assert owner == "n0"
        # A row move first, so the restored order can be checked.
        snapshot = next(obj for _, obj in viewers[1].received if obj["type"] == "snapshot")
        clock = ClientClock()  # one per viewer: its times must never go back
        _, up = await move_row(viewers[1], snapshot, clock=clock)
        _, _, moved = await viewers[2].wait_type("rowMoved")
        await settle(viewers[1], up)
        moved_order = cluster.stored_order(room_name)
        await cluster.until_redis_settled()
        # A fling from n1 (released with speed), then n0 is killed while frames still flow.
        before = len(viewers[2].received)
        await drag(viewers[1], clock, x=200, y0=750, y1=250, steps=6)
        await viewers[2].wait_type("frame", start=before, where=lambda f: f["animating"])
        seen = max(f["seq"] for _, f in viewers[2].frames())
        marks = [len(v.received) for v in viewers[1:]]
        cluster.nodes[0].proc.kill()
        killed_at = time.monotonic()
        new_owner, new_epoch = await cluster.until_owner(room_name, lambda lease: lease[0] != "n0", timeout=2.0)
        took = time.monotonic() - killed_at
        assert new_owner in ("n1", "n2") and new_epoch > epoch
        # Each survivor gets the room again from the new owner: the moved order, and a seq above
        # every frame it saw.
        for viewer, mark in zip(viewers[1:], marks):
            _, _, again = await viewer.wait_type("snapshot", start=mark, timeout=5)
            assert order(again) == moved_order
            assert again["frame"]["seq"] >= seen
            # The dead node's viewer is gone from the room; both survivors are in it.
            await viewer.wait_for(lambda m: m.get("type") in ("snapshot", "presence") and m["viewers"] == 2, start=mark)
        # Frames resume, with higher seqs, for a drag from either survivor.
        start = [len(v.received) for v in viewers[1:]]
        last = await drag(viewers[2], ClientClock(), x=200, y0=700, y1=500)
        for viewer, mark in zip(viewers[1:], start):
            _, _, frame = await viewer.wait_type("frame", start=mark, where=lambda f: f["input"] is not None)
            assert frame["seq"] > seen
        await settle(viewers[2], last)
        for viewer in viewers[1:]:
            assert viewer.close_code is None, "viewers on surviving nodes keep their connections"
        print(f"failover: {new_owner} owned the room {took * 1000:.0f} ms after the SIGKILL")
        for viewer in viewers[1:]:
            await viewer.close()
    run(scenario())
