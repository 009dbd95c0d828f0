"""The inputs stream (docs/protocol.md, "The inputs stream") against the real server, with raw
WebSocket clients: a viewer that joins with `"stream": "inputs"` and the server's engine version
gets a snapshot carrying the engine's state, then batches and hashed beats while another viewer
flings, and never a frame (the driver, on frames, gets them); a keyframe request is answered with
a fresh state and counted on /metrics; a join naming another engine version is refused with
`error` and close 4100."""

from __future__ import annotations

import base64
import json
import re
import time
import uuid

from raw_websocket import CLOSE, TEXT, RawWebSocket
from server_helpers import metric

ENGINE = 1  # EngineVersion.current (Sources/ScrollEngine/EngineVersion.swift)


def join(port: int, room: str, **fields) -> RawWebSocket:
    ws = RawWebSocket(port)
    assert ws.upgraded, ws.head
    ws.send_text(json.dumps({"type": "join", "room": room, "client": "e2e-inputs/1", **fields}))
    return ws


def read_until(ws: RawWebSocket, done, timeout: float = 10.0) -> list[dict]:
    """Messages read until `done(messages)` holds (a condition on what arrived; fails after
    `timeout` s)."""
    messages: list[dict] = []
    deadline = time.monotonic() + timeout
    while not done(messages):
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"gave up after {[m.get('type') for m in messages][-20:]}"
        opcode, payload = ws.read_frame(remaining)
        assert opcode == TEXT, (opcode, payload[:80])
        messages.append(json.loads(payload))
    return messages


def fling(ws: RawWebSocket) -> int:
    """Pointer down, 8 moves 16 ms apart upwards, release: 10 inputs."""
    ws.send_text(json.dumps({"type": "input", "id": 1, "t": 0, "kind": "pointerDown", "x": 100, "y": 600}))
    for step in range(1, 9):
        time.sleep(0.016)  # the gesture's own pace: a fling needs time between its moves
        ws.send_text(json.dumps({"type": "input", "id": 1 + step, "t": 16 * step, "kind": "pointerMove",
                                 "x": 100, "y": 600 - 45 * step}))
    ws.send_text(json.dumps({"type": "input", "id": 10, "t": 160, "kind": "pointerUp", "x": 100, "y": 220}))
    return 10


def test_an_inputs_viewer_gets_state_batches_and_beats_but_no_frame(scrollcast_server):
    port = scrollcast_server.port
    room = f"inputs-{uuid.uuid4().hex[:8]}"
    stream = join(port, room, stream="inputs", engine=ENGINE)
    driver = join(port, room)
    try:
        (snapshot,) = read_until(stream, lambda ms: len(ms) == 1)
        assert snapshot["type"] == "snapshot"
        replica = snapshot["replica"]
        assert replica["engine"] == ENGINE and replica["changes"] == 0
        assert base64.b64decode(replica["state"], validate=True)[:4] == b"SCST"
        read_until(driver, lambda ms: any(m["type"] == "snapshot" for m in ms))
        sent = fling(driver)

        def settled(ms):
            batches = [m for m in ms if m["type"] == "batch"]
            beats = [m for m in ms if m["type"] == "beat" and m["t"] > replica["t"]]
            return bool(batches) and batches[-1]["changes"] == sent and len(beats) >= 3

        messages = read_until(stream, settled)
        types = {m["type"] for m in messages}
        assert "frame" not in types and "applied" not in types, types
        changes = 0
        for batch in (m for m in messages if m["type"] == "batch"):
            assert batch["changes"] - len(batch["applied"]) == changes, "batches number every change once"
            assert all(entry["cause"] == "input" and "complete" not in entry for entry in batch["applied"])
            changes = batch["changes"]
        assert changes == sent
        beats = [m for m in messages if m["type"] == "beat"]
        assert all(re.fullmatch(r"[0-9a-f]{16}", b["hash"]) and b["complete"] <= b["t"] for b in beats), beats
        assert len({b["hash"] for b in beats}) >= 2, "the room moved: its frame hashes differ"
        frames = read_until(driver, lambda ms: sum(m["type"] == "frame" for m in ms) >= 20)
        assert sum(m["type"] == "frame" for m in frames) >= 20, "the room sends frames, to its frames viewer"

        before = metric(scrollcast_server, "scrollcast_keyframes_total")
        stream.send_text(json.dumps({"type": "keyframe"}))
        fresh = read_until(stream, lambda ms: any(m["type"] == "snapshot" for m in ms))[-1]
        assert fresh["replica"]["changes"] == sent and fresh["viewer"] == snapshot["viewer"]
        assert metric(scrollcast_server, "scrollcast_keyframes_total") == before + 1
    finally:
        stream.close()
        driver.close()


def test_a_bogus_engine_version_is_refused_with_4100(scrollcast_server):
    ws = join(scrollcast_server.port, f"inputs-{uuid.uuid4().hex[:8]}", stream="inputs", engine=4242)
    try:
        code, reason, frames = ws.read_until_close()
        expected = f"stream 'inputs' needs engine {ENGINE}; got 4242"
        assert (code, reason) == (4100, expected)
        assert [json.loads(p) for op, p in frames if op != CLOSE] == [{"type": "error", "message": expected}]
    finally:
        ws.close()
