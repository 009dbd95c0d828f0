"""Durable rooms under a crash: four viewers move rows as fast as the rate limit allows, the
server is killed with SIGKILL mid-storm and started again on the same file. Every move any
viewer was told of (`rowMoved`) must be in the restored order: the order after a restart is the
initial order with some prefix of the accepted moves applied, and that prefix holds every
announced move."""

from __future__ import annotations

import asyncio
import random
import signal

from server_helpers import ClientClock, Viewer, move_row, order, run

VIEWERS = 4
# Moves the first viewer must have seen before the kill: well into the storm.
MOVES_BEFORE_KILL = 300
# Each viewer's pace: at most 3 inputs per 15 ms, 200 inputs/s, under the 240/s a connection
# may send sustained (its burst allowance of 120 is never needed); closer to 60/s in practice,
# as each viewer also waits to hear how its last move went (see `storm`).
MOVE_INTERVAL = 0.015


def apply_moves(initial: list[list[int]], moves: list[dict]) -> list[list[int]]:
    """The order after `moves` (rowMoved messages, in version order), as a page applies them."""
    result = [list(section) for section in initial]
    for move in moves:
        row = result[move["from"]["s"]].pop(move["from"]["r"])
        assert row == move["rowId"], f"move {move['version']} names row {move['rowId']}, found {row}"
        result[move["to"]["s"]].insert(move["to"]["r"], row)
    return result


def fewest_moves_between(a: list[list[int]], b: list[list[int]]) -> int:
    """How many single-row moves (out of any place, into any place) turn order `a` into `b`:
    every row not moved keeps its section and its order among the unmoved ones, so the most
    rows that can stay are, per section, a longest common subsequence."""
    assert sorted(sum(a, [])) == sorted(sum(b, [])), "the same rows"
    stay = 0
    for section_a, section_b in zip(a, b):
        position = {row: i for i, row in enumerate(section_b)}
        # Longest increasing run of positions = longest common subsequence of distinct ids.
        tails: list[int] = []
        for row in section_a:
            if row not in position:
                continue
            p = position[row]
            lo, hi = 0, len(tails)
            while lo < hi:
                mid = (lo + hi) // 2
                if tails[mid] < p:
                    lo = mid + 1
                else:
                    hi = mid
            tails[lo:lo + 1] = [p]
        stay += len(tails)
    return len(sum(a, [])) - stay


async def storm(viewer: Viewer, snapshot: dict, seed: int, stop: asyncio.Event):
    """Tap-and-hold moves, one after another until `stop` or the connection drops: an explicit
    long press on a row in the middle of the screen (clear of the autoscroll zones), carried to
    another row's place, dropped. While another viewer holds the room the inputs are refused
    (`driving`); that is part of the storm. Each viewer sends its next move as soon as it has
    heard how the last one went (its claim released, or the drop refused) and no faster than
    the rate limit allows: a test client that fell behind on a loaded machine would have its
    connection closed for overflowing its send queue (1008), which is the server protecting
    itself, not what this test is about."""
    rng = random.Random(seed)
    me = snapshot["viewer"]
    viewport = snapshot["scene"]["viewport"]
    places = [r["y"] + r["h"] / 2 for r in snapshot["frame"]["rows"]
              if 300 < r["y"] and r["y"] + r["h"] < viewport["height"] - 250]
    clock = ClientClock()
    try:
        while not stop.is_set():
            y0, y1 = rng.sample(places, 2)
            start = len(viewer.received)
            await viewer.input("longPressBegan", clock.now(), x=150, y=y0)
            await viewer.input("longPressMove", clock.now(), x=150, y=y1)
            end = await viewer.input("longPressEnd", clock.now(), x=150, y=y1)
            index, _, answer = await viewer.wait_for(
                lambda m: (m.get("type") == "refused" and m["input"] == end)
                or (m.get("type") == "presence" and m["driver"] == me), start=start)
            if answer["type"] == "presence":
                await viewer.wait_type("presence", start=index + 1, where=lambda m: m["driver"] != me)
            await asyncio.sleep(MOVE_INTERVAL)  # pacing under the rate limit, not a wait for anything
    except Exception:  # the server was killed under us
        pass


def test_every_announced_move_survives_a_sigkill_mid_storm(server_factory, tmp_path, room_name):
    data = tmp_path / "rooms.sqlite"
    server = server_factory(data=data)

    async def before_kill():
        viewers = [await Viewer.join(server.ws_url, room_name) for _ in range(VIEWERS)]
        snapshots = [(await v.wait_type("snapshot"))[2] for v in viewers]
        initial = order(snapshots[-1])
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        started = loop.time()
        tasks = [asyncio.create_task(storm(v, {**snapshots[-1], "viewer": snapshot["viewer"]}, seed, stop))
                 for seed, (v, snapshot) in enumerate(zip(viewers, snapshots))]
        await viewers[0].wait_type("rowMoved", timeout=20, where=lambda m: m["version"] >= MOVES_BEFORE_KILL)
        server.proc.send_signal(signal.SIGKILL)
        elapsed = loop.time() - started
        stop.set()
        for v in viewers:
            await v.wait_closed()
        await asyncio.gather(*tasks)
        return initial, viewers, elapsed

    initial, viewers, elapsed = run(before_kill())
    assert server.proc.wait(timeout=10) == -signal.SIGKILL

    # What the viewers were told, by version: every viewer heard the same moves in the same
    # order, each from version 1 on without a gap.
    announced: dict[int, dict] = {}
    for v in viewers:
        mine = [m for _, m in v.received if m.get("type") == "rowMoved"]
        assert [m["version"] for m in mine] == list(range(1, len(mine) + 1))
        for m in mine:
            assert announced.setdefault(m["version"], m) == m, "viewers agree on each move"
    seen = len(announced)
    moves = [announced[v] for v in range(1, seen + 1)]
    refused = sum(1 for v in viewers for _, m in v.received if m.get("type") == "refused")
    # The frame clock never waits for the disk: frames keep their pace while moves commit.
    sent = [m["sentAt"] for _, m in viewers[0].received if m.get("type") == "frame"]
    longest_gap = max(b - a for a, b in zip(sent, sent[1:]))
    print(f"\n{seen} moves announced in {elapsed:.2f} s before SIGKILL ({seen / elapsed:.0f}/s); "
          f"{refused} inputs refused while another viewer held the room; {len(sent)} frames at viewer 1, "
          f"longest gap between two {longest_gap:.1f} ms")
    assert seen >= MOVES_BEFORE_KILL

    server.start()

    async def after_restart():
        viewer = await Viewer.join(server.ws_url, room_name)
        _, _, snapshot = await viewer.wait_type("snapshot")
        restored = order(snapshot)
        # The snapshot carries no version; the next move's does: the file holds moves 1…kept.
        _, up = await move_row(viewer, snapshot, rows_down=1)
        _, _, next_move = await viewer.wait_type("rowMoved")
        await viewer.close()
        return restored, next_move["version"] - 1

    restored, kept = run(after_restart())
    print(f"the file kept {kept} moves; {kept - seen} committed but not yet announced when killed")
    assert kept >= seen, f"an announced move was lost: {seen} announced, {kept} kept"
    expected = apply_moves(initial, moves)
    if kept == seen:
        assert restored == expected
    else:
        # Moves past the last announced one were committed but their rowMoved never reached a
        # viewer: the restored order is the announced one plus that many more moves.
        assert fewest_moves_between(expected, restored) <= kept - seen
