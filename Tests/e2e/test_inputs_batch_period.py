"""The batch period a viewer of the inputs stream asks for (docs/protocol.md, "The inputs
stream", `batchMs`) against the real server, with raw WebSocket clients: two viewers of one room,
one on the default period and one asking 250 ms, get the same changes in the same order, the
long-period one in far fewer batches spaced at least its period apart (beats aside); a bad value
is refused with close 1008 naming the field."""

from __future__ import annotations

import json
import time
import uuid

import pytest

from raw_websocket import RawWebSocket
from test_inputs_stream import ENGINE, join, read_until


def drag(ws: RawWebSocket, moves: int = 40) -> int:
    """Pointer down, `moves` moves 10 ms apart, release: moves + 2 inputs."""
    ws.send_text(json.dumps({"type": "input", "id": 1, "t": 0, "kind": "pointerDown", "x": 100, "y": 600}))
    for step in range(1, moves + 1):
        time.sleep(0.010)  # the gesture's own pace: a batch period needs time to pass
        ws.send_text(json.dumps({"type": "input", "id": 1 + step, "t": 10 * step, "kind": "pointerMove",
                                 "x": 100, "y": 600 - 5 * step}))
    ws.send_text(json.dumps({"type": "input", "id": moves + 2, "t": 10 * moves + 10, "kind": "pointerUp",
                             "x": 100, "y": 600 - 5 * moves}))
    return moves + 2


def test_a_long_batch_period_sends_the_same_changes_in_fewer_batches(scrollcast_server):
    port = scrollcast_server.port
    room = f"period-{uuid.uuid4().hex[:8]}"
    short = join(port, room, stream="inputs", engine=ENGINE)
    long = join(port, room, stream="inputs", engine=ENGINE, batchMs=250)
    driver = join(port, room)
    try:
        for ws in (short, long, driver):
            read_until(ws, lambda ms: any(m["type"] == "snapshot" for m in ms))
        sent = drag(driver)

        def holds_all(ms):
            return any(m["type"] == "batch" and m["changes"] == sent for m in ms)

        arrivals = {}
        received = {}
        for name, ws in (("short", short), ("long", long)):
            messages, times = [], []
            deadline = time.monotonic() + 10
            while not holds_all(messages):
                assert time.monotonic() < deadline, [m["type"] for m in messages][-20:]
                opcode, payload = ws.read_frame(deadline - time.monotonic())
                messages.append(json.loads(payload))
                times.append(time.monotonic())
            received[name] = messages
            arrivals[name] = times
        entries = {name: [(e["id"], e["t"], e.get("x"), e.get("y")) for m in ms if m["type"] == "batch" for e in m["applied"]]
                   for name, ms in received.items()}
        assert len(entries["short"]) == sent and entries["short"] == entries["long"], "the same changes, exact, in order"
        batches = {name: [m for m in ms if m["type"] == "batch"] for name, ms in received.items()}
        # 400+ ms of dragging: about one batch a frame period on the default, a few at 250 ms
        # (a beat takes the waiting changes with it, so some leave sooner).
        assert len(batches["short"]) >= 10, len(batches["short"])
        assert len(batches["long"]) <= len(batches["short"]) / 3, (len(batches["long"]), len(batches["short"]))
        # Between two batches of the long period that no beat brought, at least its period.
        lone = [m for i, m in enumerate(received["long"]) if m["type"] == "batch"
                and (i + 1 == len(received["long"]) or received["long"][i + 1]["type"] != "beat")]
        marks = [m["complete"] for m in lone]
        assert all(b - a >= 250 - 2 for a, b in zip(marks, marks[1:])), marks
    finally:
        for ws in (short, long, driver):
            ws.close()


@pytest.mark.parametrize("fields,reason", [
    ({"stream": "inputs", "engine": ENGINE, "batchMs": 0}, "field 'batchMs' must be an integer in 1…1000"),
    ({"stream": "inputs", "engine": ENGINE, "batchMs": 1001}, "field 'batchMs' must be an integer in 1…1000"),
    ({"stream": "inputs", "engine": ENGINE, "batchMs": 2.5}, "field 'batchMs' must be an integer in 1…1000"),
    ({"batchMs": 250}, "field 'batchMs' needs 'stream': 'inputs'"),
])
def test_a_bad_batch_period_is_refused_naming_the_field(scrollcast_server, fields, reason):
    ws = join(scrollcast_server.port, f"period-{uuid.uuid4().hex[:8]}", **fields)
    try:
        code, got, _ = ws.read_until_close()
        assert code == 1008 and reason in got, (code, got)
    finally:
        ws.close()
