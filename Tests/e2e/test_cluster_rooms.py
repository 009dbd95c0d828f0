"""One room, viewers on three nodes of a cluster (docs/cluster.md), a real Redis and three real
scrollcast processes: every viewer gets the same bytes for each seq, a viewer on a node that does
not run the room drives it, claims and refusals and presence work across nodes, and a row move
made on another node is in every viewer's order and in Redis."""

from __future__ import annotations

import pytest

from cluster_helpers import digest_by_seq, frame_bytes_by_seq, join_on_every_node
from server_helpers import ClientClock, Viewer, drag, move_row, order, run, settle



@pytest.mark.parametrize("protocol", ["v1", "v2"])
def test_every_viewer_on_every_node_gets_the_same_bytes_for_each_seq(cluster, room_name, protocol):
    async def scenario():
        viewers = await join_on_every_node(cluster, room_name, protocol)
        assert cluster.owner_index(room_name) == 0
        # Driven from n2, which does not run the room: its input goes to n0 and back as frames.
        driver = viewers[2]
        last = await drag(driver, ClientClock(), x=200, y0=700, y1=250)
        end = await settle(driver, last)
        final_seq = driver.received[end][1]["seq"]
        for viewer in viewers[:2]:
            await viewer.wait_type("frame", where=lambda f: f["seq"] >= final_seq)
        digests = [digest_by_seq(v) for v in viewers]
        common = set(digests[0]) & set(digests[1]) & set(digests[2])
        assert len(common) >= 5, [sorted(d) for d in digests]
        for seq in common:
            assert digests[0][seq] == digests[1][seq] == digests[2][seq], f"seq {seq} differs across nodes"
        # The frames name the remote driver's inputs, and the content moved.
        me = next(obj for _, obj in driver.received if obj["type"] == "snapshot")["viewer"]
        assert me.startswith("n2/")
        named = [obj["input"] for _, obj in viewers[0].frames() if obj["input"]]
        assert named and all(i["viewer"] == me for i in named)
        offsets = [obj["offset"] for _, obj in viewers[1].frames()]
        # A drag the room took for a press held still (its moves came late) lifts a row instead.
        seen = [(f["phase"], f["lifted"] is not None, (f["input"] or {}).get("id")) for _, f in viewers[1].frames()]
        assert max(offsets) - min(offsets) > 100, (offsets, seen)
        for viewer in viewers:
            await viewer.close()
    run(scenario())


def test_presence_counts_viewers_on_every_node_and_a_claim_refuses_others(cluster, room_name):
    async def scenario():
        viewers = await join_on_every_node(cluster, room_name)
        extra = await Viewer.join(cluster.ws(1), room_name)
        _, _, snapshot = await extra.wait_type("snapshot")
        assert snapshot["viewers"] == 4
        for viewer in viewers:
            await viewer.wait_type("presence", where=lambda p: p["viewers"] == 4)
        # n1's viewer drives; n2's is refused while it does, naming the driver.
        a, b = viewers[1], viewers[2]
        me_a = next(obj for _, obj in a.received if obj["type"] == "snapshot")["viewer"]
        clock_a, clock_b = ClientClock(), ClientClock()
        await a.input("pointerDown", clock_a.now(), x=200, y=700)
        await b.wait_type("presence", where=lambda p: p["driver"] == me_a)
        refused_id = await b.input("pointerDown", clock_b.now(), x=100, y=400)
        _, _, refused = await b.wait_type("refused", where=lambda r: r["input"] == refused_id)
        assert refused["code"] == "driving" and me_a in refused["reason"]
        up = await a.input("pointerUp", clock_a.now(), x=200, y=700)
        await b.wait_type("presence", where=lambda p: p["driver"] is None)
        # A viewer leaving on one node is counted out on the others.
        await extra.close()
        await viewers[0].wait_type("presence", where=lambda p: p["viewers"] == 3)
        await settle(a, up)
        for viewer in viewers:
            await viewer.close()
    run(scenario())


def test_a_row_move_on_another_node_reaches_every_viewer_and_redis(cluster, room_name):
    async def scenario():
        viewers = await join_on_every_node(cluster, room_name)
        snapshot = next(obj for _, obj in viewers[2].received if obj["type"] == "snapshot")
        row, up = await move_row(viewers[2], snapshot)
        moves = []
        for viewer in viewers:
            _, _, moved = await viewer.wait_type("rowMoved")
            moves.append(moved)
        assert moves[0] == moves[1] == moves[2]
        assert moves[0]["rowId"] == row["id"] and moves[0]["by"] == snapshot["viewer"]
        to = moves[0]["to"]
        stored = cluster.stored_order(room_name)
        assert stored[to["s"]][to["r"]] == row["id"], "the move is in Redis before anyone hears of it"
        # A late joiner on yet another node's connection gets the new order in its snapshot.
        await settle(viewers[2], up)
        late = await Viewer.join(cluster.ws(1), room_name)
        _, _, late_snapshot = await late.wait_type("snapshot")
        assert order(late_snapshot) == stored
        for viewer in (*viewers, late):
            await viewer.close()
    run(scenario())


def test_a_joiner_on_a_non_owner_node_gets_the_latest_frame_without_waiting_for_motion(cluster, room_name):
    async def scenario():
        first = await Viewer.join(cluster.ws(0), room_name)
        await first.wait_type("snapshot")
        last = await drag(first, ClientClock(), x=200, y0=700, y1=300)
        end = await settle(first, last)
        resting = first.received[end][1]
        joiner = await Viewer.join(cluster.ws(2), room_name, protocol="v2")
        _, _, snapshot = await joiner.wait_type("snapshot")
        assert snapshot["frame"]["seq"] == resting["seq"]
        assert snapshot["frame"]["offset"] == pytest.approx(resting["offset"], abs=0.01)
        await first.close()
        await joiner.close()
    run(scenario())


def test_a_locked_room_made_on_one_node_is_driven_from_another_only_with_its_key(cluster, room_name):
    async def scenario():
        creator = await Viewer.join(cluster.ws(0), room_name, lock=True)
        _, _, created = await creator.wait_type("snapshot")
        key = created["driverKey"]
        assert key and created["locked"] is True
        stranger = await Viewer.join(cluster.ws(1), room_name)
        _, _, watching = await stranger.wait_type("snapshot")
        assert watching["locked"] is True and watching.get("driverKey") is None
        refused_id = await stranger.input("wheel", ClientClock().now(), dx=0, dy=120, mode="pixel")
        _, _, refused = await stranger.wait_type("refused", where=lambda r: r["input"] == refused_id)
        assert refused["code"] == "locked"
        holder = await Viewer.join(cluster.ws(2), room_name, driverKey=key)
        _, _, holding = await holder.wait_type("snapshot")
        assert holding["driverKey"] == key
        wheel = await holder.input("wheel", ClientClock().now(), dx=0, dy=120, mode="pixel")
        await creator.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == wheel
                                and f["input"]["viewer"].startswith("n2/"))
        for viewer in (creator, stranger, holder):
            await viewer.close()
    run(scenario())
