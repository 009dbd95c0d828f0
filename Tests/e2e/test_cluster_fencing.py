"""Fencing (docs/cluster.md): the node running a room is frozen with SIGSTOP past its lease,
another node takes the room over, then the frozen node is thawed with SIGCONT mid-fling. No
frame or row move of the old owner may reach any viewer after the takeover, and the old owner
steps down at once: its own viewers follow the new owner."""

from __future__ import annotations

import asyncio
import signal
import time


from cluster_helpers import join_on_every_node
from server_helpers import ClientClock, drag, metric, run, settle, until_metric



def test_a_frozen_owner_is_fenced_out_and_steps_down_when_thawed(cluster, room_name):
    async def scenario():
        viewers = await join_on_every_node(cluster, room_name)
        assert cluster.lease(room_name)[0] == "n0"
        old_epoch = cluster.lease(room_name)[1]
        # Freeze n0 mid-fling (driven by its own viewer), so it has frames to send when thawed.
        before = len(viewers[0].received)
        await drag(viewers[0], ClientClock(), x=200, y0=750, y1=250, steps=6)
        await viewers[0].wait_type("frame", start=before, where=lambda f: f["animating"])
        frozen = cluster.nodes[0].proc
        frozen.send_signal(signal.SIGSTOP)
        try:
            new_owner, new_epoch = await cluster.until_owner(
                room_name, lambda lease: lease[0] != "n0", timeout=10)
            assert new_epoch > old_epoch
            # The survivors get the room from the new owner.
            for viewer in viewers[1:]:
                await viewer.wait_type("snapshot", start=1, timeout=5)
            thawed_at = time.time() * 1000
        finally:
            frozen.send_signal(signal.SIGCONT)
        # The old owner learns it lost the lease and stops; its viewer follows the new owner.
        await until_metric(cluster.nodes[0], "scrollcast_cluster_lease_losses_total", lambda v: v >= 1)
        assert metric(cluster.nodes[0], "scrollcast_cluster_rooms_owned") == 0
        index, _, again = await viewers[0].wait_type("snapshot", start=1, timeout=5)
        # Everyone drives on under the new owner.
        last = await drag(viewers[2], ClientClock(), x=200, y0=700, y1=400)
        await settle(viewers[2], last)
        for viewer in viewers:
            await viewer.wait_type("frame", where=lambda f: f["input"] is not None and f["input"]["id"] == last
                                   and f["input"]["viewer"].startswith("n2/"))
        # No viewer got a frame made after the thaw except from the new owner: after its new
        # snapshot, and in one rising run of seqs.
        for number, viewer in enumerate(viewers):
            snapshot_index = max(i for i, (_, obj) in enumerate(viewer.received) if obj["type"] == "snapshot")
            for i, (_, obj) in enumerate(viewer.received):
                if obj["type"] == "frame" and obj["sentAt"] >= thawed_at:
                    assert i > snapshot_index, f"viewer {number} got a frame made after the thaw before the new owner's snapshot"
            after = [obj["seq"] for _, obj in viewer.received[snapshot_index + 1:] if obj["type"] == "frame"]
            assert after == sorted(set(after)), f"viewer {number}: seqs after the takeover must rise: {after}"
            assert viewer.close_code is None
        for viewer in viewers:
            await viewer.close()
    run(scenario())
