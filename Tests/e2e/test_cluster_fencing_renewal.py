"""Fencing by the time a lease was asked for (docs/cluster.md, "Fencing"; issue 28): the owner is
frozen with SIGSTOP while the reply to its lease renewal is in flight. Redis has answered
"renewed", but a relay between the node and Redis holds that reply until after another node has
taken the room over (higher epoch) and moved a row. The thawed node reads a renewal that was true
when it was answered and proves nothing now: its own viewers must get nothing of its stale room
(no presence, no frame made after the freeze) before the new owner's snapshot, every input that
reached it while frozen must be answered (refused `unavailable`, or applied by the new owner),
and every viewer ends with the new owner's order."""

from __future__ import annotations

import asyncio
import os
import signal
import time

from cluster_helpers import Cluster, join_on_every_node
from redis_relay import RedisRelay
from server_helpers import ClientClock, drag, metric, move_row, order, run, until_metric


def viewer_id(viewer) -> str:
    return next(obj for _, obj in viewer.received if obj["type"] == "snapshot")["viewer"]


def order_now(viewer) -> list[list[int]]:
    """The row order a client holds: its last snapshot's, with the `rowMoved`s after it."""
    last = max(i for i, (_, obj) in enumerate(viewer.received) if obj["type"] == "snapshot")
    rows = order(viewer.received[last][1])
    for _, obj in viewer.received[last + 1:]:
        if obj["type"] == "rowMoved":
            moved = rows[obj["from"]["s"]].pop(obj["from"]["r"])
            rows[obj["to"]["s"]].insert(obj["to"]["r"], moved)
    return rows


def answer(viewer, input_id: int, after: int):
    """How input `input_id` was answered: ("refused", code), ("applied", None) when a message of
    the room at or after index `after` names it (a frame's input, or presence naming its viewer
    as driver after its long press), or None while it has no answer."""
    me = viewer_id(viewer)
    for index, (_, obj) in enumerate(viewer.received):
        if obj["type"] == "refused" and obj.get("input") == input_id:
            return "refused", obj["code"]
        if index < after:
            continue
        named = obj.get("input") if obj["type"] == "frame" else None
        if named and named["viewer"] == me and named["id"] >= input_id:
            return "applied", None
        if obj["type"] in ("presence", "snapshot") and obj.get("driver") == me:
            return "applied", None
    return None


def stopped(pid: int) -> bool:
    """Whether every thread of process `pid` is stopped (state T in /proc)."""
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as stat:
                state = stat.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            continue  # a thread that ended meanwhile
        if state not in ("T", "t"):
            return False
    return True


async def until_stopped(pid: int, timeout: float = 5.0):
    """SIGSTOP is delivered asynchronously: on a busy machine a thread of the node may still run
    for a moment after kill() returns. Polls /proc every 5 ms until every thread has stopped."""
    deadline = time.monotonic() + timeout
    while not stopped(pid):
        if time.monotonic() > deadline:
            raise AssertionError(f"process {pid} did not stop")
        await asyncio.sleep(0.005)  # polling interval of the condition above


async def until_answered(viewer, input_id: int, after: int, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while (found := answer(viewer, input_id, after)) is None:
        if time.monotonic() > deadline:
            raise AssertionError(f"input {input_id} of {viewer_id(viewer)} was never answered; got {viewer.types()}")
        try:
            await viewer.wait_for(lambda _: True, timeout=max(0.01, deadline - time.monotonic()), start=len(viewer.received))
        except AssertionError:
            pass  # nothing more came before the deadline: the check above says so
    return found


def test_a_renewal_answered_before_a_freeze_and_read_after_it_shows_the_thawed_owners_viewer_nothing_stale(
        server_factory, redis_server, room_name):
    relay = RedisRelay(redis_server.port)
    try:
        cluster = Cluster(server_factory, redis_server, urls={0: relay.url})
        run(freeze_during_renewal(cluster, relay, room_name))
    finally:
        relay.close()


async def freeze_during_renewal(cluster: Cluster, relay: RedisRelay, room_name: str):
    viewers = await join_on_every_node(cluster, room_name)
    old_owner, old_epoch = cluster.lease(room_name)
    assert old_owner == "n0"
    # A fling on n0, so its room still has frames to make when it thaws.
    clocks = [ClientClock() for _ in viewers]
    last = await drag(viewers[0], clocks[0], x=200, y0=750, y1=250, steps=6)
    await viewers[0].wait_type("frame", where=lambda f: f["animating"] and (f["input"] or {}).get("id") == last)
    # n0 is frozen as its next renewal (within a second) passes the relay, which then holds
    # Redis's answer to it.
    frozen = cluster.nodes[0].proc
    relay.hold_next_renewal(then=lambda: frozen.send_signal(signal.SIGSTOP))
    try:
        held = await asyncio.get_running_loop().run_in_executor(None, relay.holding_renewal.wait, 5)
        assert held, "no lease renewal went through the relay"
        await until_stopped(frozen.pid)
        # Whatever n0 made before this moment may still be on its way; whatever is stamped
        # later was made after the thaw.
        stopped_at = time.time() * 1000
        marks = [len(v.received) for v in viewers]
        # Inputs that reach the frozen owner: its own viewer's long press, and a tap from each
        # other node's viewer (forwarded to n0, which they still follow).
        snapshot0 = next(obj for _, obj in viewers[0].received if obj["type"] == "snapshot")
        row = next(r for r in snapshot0["frame"]["rows"] if r["y"] > 300)
        press = await viewers[0].input("longPressBegan", clocks[0].now(), x=150, y=row["y"] + row["h"] / 2)
        taps = []
        for viewer, clock in zip(viewers[1:], clocks[1:]):
            down = await viewer.input("pointerDown", clock.now(), x=100, y=600)
            taps.append((viewer, down, await viewer.input("pointerUp", clock.now(), x=100, y=600)))
        new_owner, new_epoch = await cluster.until_owner(room_name, lambda lease: lease[0] != "n0", timeout=10)
        assert new_epoch > old_epoch
        owner_viewer = viewers[int(new_owner[1:])]
        for viewer, mark in zip(viewers[1:], marks[1:]):
            await viewer.wait_type("snapshot", start=mark, timeout=5)
        # A row moved on the new owner while n0 is still frozen.
        latest = next(obj for _, obj in reversed(owner_viewer.received) if obj["type"] == "snapshot")
        _, up = await move_row(owner_viewer, latest, clock=clocks[int(new_owner[1:])])
        for viewer in viewers[1:]:
            await viewer.wait_type("rowMoved", start=marks[viewers.index(viewer)])
        moved_order = cluster.stored_order(room_name)
        assert moved_order != order(snapshot0)
        # Redis's answer to the renewal reaches n0's socket, then n0 runs again.
        relay.release()
    finally:
        frozen.send_signal(signal.SIGCONT)

    await until_metric(cluster.nodes[0], "scrollcast_cluster_lease_losses_total", lambda v: v >= 1)
    assert metric(cluster.nodes[0], "scrollcast_cluster_rooms_owned") == 0
    again_index, _, again = await viewers[0].wait_type("snapshot", start=marks[0], timeout=10)
    assert order(again) == moved_order
    # Nothing of the stale room before the new owner's snapshot: no presence (its own or one
    # naming a driver it applied), no frame made after the freeze.
    stale = [obj for _, obj in viewers[0].received[marks[0]:again_index]
             if obj["type"] in ("presence", "rowMoved") or (obj["type"] == "frame" and obj["sentAt"] >= stopped_at)]
    assert not stale, f"n0's viewer got its stale room before the new owner's snapshot: {stale}"
    # Every input that reached the frozen owner is answered: refused `unavailable` by it, or
    # applied by the new owner (the long press, if n0 read it only after stepping down).
    how = await until_answered(viewers[0], press, after=again_index)
    assert how in (("refused", "unavailable"), ("applied", None)), how
    for viewer, down, up_id in taps:
        for input_id in (down, up_id):
            assert await until_answered(viewer, input_id, after=len(viewer.received)) == ("refused", "unavailable")
    if how[0] == "applied":
        await viewers[0].input("longPressCancel", clocks[0].now())
    # Every viewer ends with the new owner's order, under one owner, connections kept.
    for viewer in viewers:
        assert order_now(viewer) == moved_order
        assert viewer.close_code is None
    print(f"renewal held: {new_owner} took over at epoch {new_epoch}; n0's long press {how[0]}")
    for viewer in viewers:
        await viewer.close()
