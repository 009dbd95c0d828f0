"""`applied` messages leave with the frame that first shows them (docs/protocol.md, "Inputs
applied"), against the real server with real clients (Python `websockets`, both protocol
versions; the server writes them and the frame in one write, CorkedWrite.swift): every input the
room applied reaches a watcher after the last frame that does not show it and before the first
that does, the decoder reads every message of those writes, and the driver, watching too, gets
the frame of its own input as before. Run with writes at once on and off."""

from __future__ import annotations

import asyncio

import pytest

from server_helpers import ClientClock, Viewer, drag, run, settle


def applied_inputs_against_frames(viewer: Viewer) -> list[tuple[int, int | None, int | None]]:
    """For each `applied` input (cause `input`): (its `after`, the highest seq of the frames
    received before it, the seq of the first frame received after it that shows it: seq > after)."""
    rows = []
    highest = None
    pending: list[tuple[int, int | None]] = []
    for _, message in viewer.received:
        kind = message.get("type")
        if kind == "frame":
            seq = message["seq"]
            rows += [(after, before, seq) for after, before in pending if seq > after]
            pending = [(after, before) for after, before in pending if seq <= after]
            highest = seq if highest is None else max(highest, seq)
        elif kind == "applied" and message.get("cause") == "input":
            pending.append((message["after"], highest))
    return rows + [(after, before, None) for after, before in pending]


# Alone: "no frame skipped" needs a client reading as fast as the server writes; first in the
# workers' phase, beside three browsers starting, a fresh clone's read 21 of 32 (the latest slot
# rightly skips frames for a reader behind).
@pytest.mark.alone
@pytest.mark.parametrize("at_once", ["0", "1"])
def test_every_applied_input_arrives_between_the_frame_before_it_and_the_first_showing_it(server_factory, room_name, at_once, monkeypatch):
    monkeypatch.setenv("SCROLLCAST_WRITE_AT_ONCE", at_once)
    server = server_factory()

    async def scenario():
        driver = await Viewer.join(server.ws_url, room_name, inputs=True)
        watchers = [await Viewer.join(server.ws_url, room_name, protocol=p, inputs=True) for p in ("v1", "v2")]
        for viewer in (driver, *watchers):
            await viewer.wait_type("snapshot")
        clock = ClientClock()
        # Moves 4 ms apart, faster than the room's half-period gap: several inputs share a frame.
        last = await drag(driver, clock, x=200, y0=700, y1=200, steps=30, interval=0.004)
        await settle(driver, last)
        for viewer in watchers:
            await viewer.wait_type("frame", timeout=30, where=lambda f: f["animating"] is False
                                   and (f.get("input") or {}).get("id", 0) >= last)
        return driver, watchers, last

    driver, watchers, last = run(scenario())
    for viewer in (driver, *watchers):
        rows = applied_inputs_against_frames(viewer)
        assert len(rows) == last, f"every input applied once: {len(rows)} of {last}"
        for after, before, first_after in rows:
            # Never after a frame that shows it. (A frame that does not can still come after it:
            # one waiting in the latest slot while a message of another type takes the held
            # `applied` ahead of itself, as the doc says.)
            assert before is None or before <= after, f"applied after {after} came after frame {before}"
            assert first_after is not None, f"applied after {after}: no frame showing it followed"
        # Reading as fast as the server writes, no frame is skipped between: the next is the one.
        exact = sum(1 for after, _, first_after in rows if first_after == after + 1)
        assert exact >= len(rows) * 0.9, f"{exact} of {len(rows)} applied were followed by frame after + 1"
    # The driver's own frames name its inputs, up to the last.
    named = [(f.get("input") or {}).get("id") for _, f in driver.frames()]
    assert last in named
