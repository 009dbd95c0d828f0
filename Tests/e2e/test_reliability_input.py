"""Bad input from a stranger: a clear error and close code for them, and the room unharmed.

Every scenario runs in a room where a driver and an observer are already watching. The stranger
joins that room (or not, when the message is bad before joining), sends the bad message, and gets
its answer. Then the room must be exactly as before: the observer still receives the driver's
frames, the viewer count is back, and a new joiner sees the same row order.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from websockets.exceptions import ConnectionClosed

from raw_websocket import BINARY, TEXT, RawWebSocket
from server_helpers import ClientClock, Viewer, run


class Room:
    """A driver and an observer in one room, and the state a stranger must not disturb."""

    def __init__(self, url: str, name: str):
        self.url, self.name = url, name

    async def __aenter__(self):
        self.driver = await Viewer.join(self.url, self.name)
        self.observer = await Viewer.join(self.url, self.name)
        _, _, self.snapshot = await self.driver.wait_type("snapshot")
        await self.observer.wait_type("snapshot")
        self.clock = ClientClock()
        return self

    async def assert_unharmed(self, stranger_joined: bool = True):
        """The driver can still drive, the observer sees it, nothing was lost or changed.
        With `stranger_joined`, first waits until the stranger is gone: a newcomer's snapshot
        counts the driver, the observer and itself. (Presence cannot tell: joins and leaves
        within 250 ms are announced once, so the stranger's own join may never be announced.)"""
        snapshot = await self.newcomer_snapshot(expect_viewers=3 if stranger_joined else None)
        assert snapshot["scene"]["sections"] == self.snapshot["scene"]["sections"], "row order changed"
        assert snapshot["viewers"] == 3
        wheel = await self.driver.input("wheel", self.clock.now(), dx=0, dy=240, mode="pixel")
        _, _, frame = await self.driver.wait_type(
            "frame", where=lambda f: (f["input"] or {}).get("id") == wheel)
        await self.observer.wait_type("frame", where=lambda f: f["seq"] >= frame["seq"])
        assert self.driver.close_code is None and self.observer.close_code is None
        refusals = [o for _, o in self.driver.received + self.observer.received if o["type"] in ("refused", "error")]
        assert not refusals, refusals

    async def newcomer_snapshot(self, expect_viewers: int | None, timeout: float = 10.0) -> dict:
        """The snapshot a new joiner gets; with `expect_viewers`, joins again until the count is
        that (the server may still be closing the stranger's connection) or the timeout passes."""
        deadline = time.monotonic() + timeout
        while True:
            check = await Viewer.join(self.url, self.name)
            _, _, snapshot = await check.wait_type("snapshot")
            await check.close()
            if expect_viewers is None or snapshot["viewers"] == expect_viewers:
                return snapshot
            assert time.monotonic() < deadline, f"the room still counts {snapshot['viewers']} viewers"

    async def __aexit__(self, *exc):
        await self.driver.close()
        await self.observer.close()


async def stranger_joined(url: str, room: str) -> Viewer:
    v = await Viewer.join(url, room)
    await v.wait_type("snapshot")
    return v


INPUT = '{"type":"input","id":1,"t":1000,'
BAD_AFTER_JOIN = {
    "malformed JSON": '{"type":"input","id":1,',
    "trailing garbage": '{"type":"input","id":1,"t":0,"kind":"pointerCancel"} x',
    "not an object": '[1,2,3]',
    "wrong type of x": INPUT + '"kind":"pointerDown","x":"left","y":3}',
    "wrong type of id": '{"type":"input","id":"1","t":0,"kind":"pointerCancel"}',
    "wrong type of t": '{"type":"input","id":1,"t":"now","kind":"pointerCancel"}',
    "fractional id": '{"type":"input","id":1.5,"t":0,"kind":"pointerCancel"}',
    "negative id": '{"type":"input","id":-1,"t":0,"kind":"pointerCancel"}',
    "id beyond 2^53-1": '{"type":"input","id":9007199254740992,"t":0,"kind":"pointerCancel"}',
    "unknown message type": '{"type":"warp","to":9}',
    "unknown input kind": INPUT + '"kind":"teleport"}',
    "type missing": '{"room":"x"}',
    "missing field y": INPUT + '"kind":"pointerDown","x":1}',
    "missing field mode": INPUT + '"kind":"wheel","dx":0,"dy":1}',
    "NaN": INPUT + '"kind":"pointerDown","x":NaN,"y":1}',
    "Infinity": INPUT + '"kind":"pointerDown","x":Infinity,"y":1}',
    "-Infinity": INPUT + '"kind":"wheel","dx":-Infinity,"dy":1,"mode":"pixel"}',
    "1e999": INPUT + '"kind":"pointerDown","x":1e999,"y":1}',
    "coordinate beyond 1e6": INPUT + '"kind":"pointerDown","x":1000001,"y":1}',
    "huge size": INPUT + '"kind":"resize","width":100000000,"height":800}',
    "negative size": INPUT + '"kind":"resize","width":-390,"height":844}',
    "negative row": INPUT + '"kind":"scrollToRow","section":0,"row":-1,"position":"top","animated":false}',
    "row index beyond the protocol's range": INPUT + '"kind":"scrollToRow","section":0,"row":1000001,"position":"top","animated":false}',
    "unknown key": INPUT + '"kind":"key","key":"F13"}',
    "nesting deeper than 16": '{"type":"input","id":1,"t":0,"kind":"pointerCancel","x":' + "[" * 40 + "]" * 40 + "}",
    "duplicate field": '{"type":"input","id":1,"id":2,"t":0,"kind":"pointerCancel"}',
    "second join": '{"type":"join","room":"elsewhere"}',
}


@pytest.mark.parametrize("message", BAD_AFTER_JOIN.values(), ids=BAD_AFTER_JOIN.keys())
def test_bad_message_gets_error_and_1008_and_the_room_is_unharmed(scrollcast_server, room_name, message):
    async def scenario():
        async with Room(scrollcast_server.ws_url, room_name) as room:
            stranger = await stranger_joined(scrollcast_server.ws_url, room_name)
            await stranger.ws.send(message)
            code, reason = await stranger.wait_closed()
            errors = [o for _, o in stranger.received if o["type"] == "error"]
            assert code == 1008, (code, reason)
            assert len(errors) == 1 and errors[0]["message"], stranger.types()
            assert reason and reason in errors[0]["message"]
            await room.assert_unharmed()
    run(scenario())


BAD_JOINS = {
    "room name too long": {"type": "join", "room": "r" * 65},
    "empty room name": {"type": "join", "room": ""},
    "room name with a space": {"type": "join", "room": "a b"},
    "room name with a control character": {"type": "join", "room": "a\u0007b"},
    "room name not ASCII": {"type": "join", "room": "caf\u00e9"},
    "room name of the wrong type": {"type": "join", "room": ["demo"]},
    "client with a newline": {"type": "join", "room": "demo", "client": "a\nb"},
    "driverKey with a space": {"type": "join", "room": "demo", "driverKey": "a b"},
    "driverKey too long": {"type": "join", "room": "demo", "driverKey": "k" * 129},
    "lock not a bool": {"type": "join", "room": "demo", "lock": "yes"},
    "input before join": {"type": "input", "id": 1, "t": 0, "kind": "pointerCancel"},
}


@pytest.mark.parametrize("message", BAD_JOINS.values(), ids=BAD_JOINS.keys())
def test_bad_join_gets_error_and_1008(scrollcast_server, room_name, message):
    async def scenario():
        async with Room(scrollcast_server.ws_url, room_name) as room:
            stranger = await Viewer.open(scrollcast_server.ws_url)
            await stranger.send(message)
            code, reason = await stranger.wait_closed()
            assert stranger.types() == ["error"], stranger.types()
            assert code == 1008 and reason
            await room.assert_unharmed(stranger_joined=False)
    run(scenario())


def test_message_over_16_KiB_is_closed_with_1009(scrollcast_server, room_name):
    async def scenario():
        async with Room(scrollcast_server.ws_url, room_name) as room:
            stranger = await stranger_joined(scrollcast_server.ws_url, room_name)
            # Valid JSON, one byte over the limit: the size alone is refused.
            padding = 16384 - len('{"type":"input","id":1,"t":0,"kind":"pointerCancel","pad":""}') + 1
            await stranger.ws.send('{"type":"input","id":1,"t":0,"kind":"pointerCancel","pad":"' + "p" * padding + '"}')
            code, reason = await stranger.wait_closed()
            assert code == 1009 and "too big" in reason
            await room.assert_unharmed()
    run(scenario())


def test_message_of_exactly_16_KiB_is_accepted(scrollcast_server, room_name):
    async def scenario():
        stranger = await stranger_joined(scrollcast_server.ws_url, room_name)
        body = '{"type":"input","id":1,"t":0,"kind":"wheel","dx":0,"dy":1,"mode":"pixel","pad":""}'
        message = body[:-2] + "p" * (16384 - len(body)) + '"}'
        assert len(message) == 16384
        await stranger.ws.send(message)
        await stranger.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == 1)
        await stranger.close()
    run(scenario())


def test_a_fragmented_message_over_the_limit_is_closed_with_1009(scrollcast_server, room_name):
    async def scenario():
        async with Room(scrollcast_server.ws_url, room_name) as room:
            stranger = await stranger_joined(scrollcast_server.ws_url, room_name)
            await stranger.ws.send(iter(["x" * 8000, "x" * 8000, "x" * 8000]))
            code, _ = await stranger.wait_closed()
            assert code == 1009
            await room.assert_unharmed()
    run(scenario())


def test_binary_message_is_closed_with_1003(scrollcast_server, room_name):
    async def scenario():
        async with Room(scrollcast_server.ws_url, room_name) as room:
            stranger = await stranger_joined(scrollcast_server.ws_url, room_name)
            await stranger.ws.send(json.dumps({"type": "input", "id": 1, "t": 0, "kind": "pointerCancel"}).encode())
            code, reason = await stranger.wait_closed()
            assert code == 1003 and "binary" in reason
            await room.assert_unharmed()
    run(scenario())


@pytest.mark.parametrize("payload", [b'{"type":"join","room":"\xff"}', b"\xc3\x28", b"\xed\xa0\x80",
                                     b'{"type":"join","room":"ok"}\xf4\x90\x80\x80'],
                         ids=["0xff", "bad continuation", "surrogate", "beyond U+10FFFF"])
def test_invalid_utf8_is_closed_with_1007(scrollcast_server, room_name, payload):
    async def scenario():
        async with Room(scrollcast_server.ws_url, room_name) as room:
            raw = RawWebSocket(scrollcast_server.port)
            assert raw.upgraded
            raw.send_frame(TEXT, payload)
            code, reason, _ = await asyncio.to_thread(raw.read_until_close)
            raw.close()
            assert code == 1007, (code, reason)
            await room.assert_unharmed(stranger_joined=False)
    run(scenario())


def test_invalid_utf8_split_across_fragments_is_closed_with_1007(scrollcast_server, room_name):
    async def scenario():
        raw = RawWebSocket(scrollcast_server.port)
        raw.send_frame(TEXT, b'{"type":"join","room":"\xe2\x82', fin=False)
        raw.send_frame(0x0, b'\x28"}', fin=True)  # é is cut, then continued with '(': invalid
        code, _, _ = await asyncio.to_thread(raw.read_until_close)
        raw.close()
        assert code == 1007
    run(scenario())


def test_valid_utf8_split_across_fragments_is_reassembled(scrollcast_server, room_name):
    async def scenario():
        raw = RawWebSocket(scrollcast_server.port)
        join = json.dumps({"type": "join", "room": room_name, "client": "caf\u00e9 \u2603"}, ensure_ascii=False).encode()
        cut = join.index("\u2603".encode()) + 1  # inside the snowman's three bytes
        raw.send_frame(TEXT, join[:cut], fin=False)
        raw.send_frame(0x0, join[cut:], fin=True)
        opcode, payload = await asyncio.to_thread(raw.read_frame)
        raw.close()
        assert opcode == TEXT and json.loads(payload)["type"] == "snapshot"
    run(scenario())


def test_input_flood_is_refused_then_closed_1008_and_the_room_keeps_going(scrollcast_server, room_name):
    async def scenario():
        async with Room(scrollcast_server.ws_url, room_name) as room:
            await room.driver.close()  # the flooder drives alone: its inputs are applied until the limit
            room.driver = await stranger_joined(scrollcast_server.ws_url, room_name)
            flooder = await stranger_joined(scrollcast_server.ws_url, room_name)
            clock = ClientClock()
            # As fast as the socket takes them, without reading in between: its receive window
            # fills, so the close frame has to wait in the server's queue and still arrive.
            for _ in range(2000):
                try:
                    await flooder.input("key", clock.now(), key="arrowDown")
                except ConnectionClosed:
                    break
            _, _, refused = await flooder.wait_type("refused", where=lambda r: "too many inputs" in r["reason"])
            code, reason = await flooder.wait_closed()
            assert code == 1008 and "rate" in reason
            applied = [f for _, f in flooder.frames() if (f["input"] or {}).get("viewer")]
            assert applied, "inputs within the limit were applied"
            await room.assert_unharmed()
    run(scenario())


def test_time_going_backwards_is_refused_and_the_connection_stays(scrollcast_server, room_name):
    async def scenario():
        v = await stranger_joined(scrollcast_server.ws_url, room_name)
        first = await v.input("wheel", 5000, dx=0, dy=10, mode="pixel")
        await v.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == first)
        back = await v.input("wheel", 4000, dx=0, dy=10, mode="pixel")
        _, _, refused = await v.wait_type("refused")
        assert refused["input"] == back and "backwards" in refused["reason"]
        after = await v.input("wheel", 5001, dx=0, dy=10, mode="pixel")
        await v.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == after)
        assert v.close_code is None
        await v.close()
    run(scenario())


def test_timestamps_far_in_the_future_do_not_move_the_room_clock(scrollcast_server, room_name):
    async def scenario():
        async with Room(scrollcast_server.ws_url, room_name) as room:
            stranger = await stranger_joined(scrollcast_server.ws_url, room_name)
            before = room.snapshot["frame"]["t"]
            down = await stranger.input("pointerDown", 1e15, x=200, y=600)
            move = await stranger.input("pointerMove", 1e15 + 1e12, x=200, y=300)
            _, _, frame = await stranger.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == move)
            # Room time is ms since the room began: the client's clock does not leak into it.
            assert frame["t"] - before < 60_000, frame["t"]
            await stranger.input("pointerUp", 1e15 + 2e12, x=200, y=300)
            await stranger.close()
            await room.assert_unharmed()
            _, _, later = await room.observer.wait_type("frame", start=0, where=lambda f: f["seq"] > frame["seq"])
            assert later["t"] >= frame["t"] and later["t"] - before < 60_000
    run(scenario())


REFUSED_INPUTS = {
    "row out of range": ('"kind":"scrollToRow","section":0,"row":999999,"position":"top","animated":false', "row"),
    "section out of range": ('"kind":"scrollToRow","section":999999,"row":0,"position":"top","animated":false', "section"),
    "move of a row that is not lifted": ('"kind":"longPressMove","x":100,"y":300', "long press"),
    "drop of a row that is not lifted": ('"kind":"longPressEnd","x":100,"y":300', "long press"),
    "pointer move with no pointer down": ('"kind":"pointerMove","x":100,"y":300', "pointer"),
    "pointer up with no pointer down": ('"kind":"pointerUp","x":100,"y":300', "pointer"),
}


@pytest.mark.parametrize("fields,named", REFUSED_INPUTS.values(), ids=REFUSED_INPUTS.keys())
def test_impossible_input_is_refused_with_a_reason_and_the_connection_stays(scrollcast_server, room_name, fields, named):
    async def scenario():
        async with Room(scrollcast_server.ws_url, room_name) as room:
            stranger = await stranger_joined(scrollcast_server.ws_url, room_name)
            await stranger.ws.send('{"type":"input","id":7,"t":1000,' + fields + "}")
            _, _, refused = await stranger.wait_type("refused")
            assert refused["input"] == 7 and named in refused["reason"], refused
            ok = await stranger.input("key", 2000, key="arrowDown")
            await stranger.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == ok)
            assert stranger.close_code is None
            await stranger.close()
            await room.assert_unharmed()
    run(scenario())


def test_a_row_dropped_after_its_lift_was_cancelled_moves_nothing(scrollcast_server, room_name):
    async def scenario():
        async with Room(scrollcast_server.ws_url, room_name) as room:
            stranger = await stranger_joined(scrollcast_server.ws_url, room_name)
            rows = room.snapshot["frame"]["rows"]
            row = next(r for r in rows if r["y"] > 300)
            await stranger.ws.send(json.dumps({"type": "input", "id": 1, "t": 1000, "kind": "longPressBegan",
                                               "x": 150, "y": row["y"] + row["h"] / 2}))
            await stranger.wait_type("frame", where=lambda f: f["lifted"] is not None)
            await stranger.ws.send('{"type":"input","id":2,"t":1010,"kind":"longPressCancel"}')
            await stranger.ws.send('{"type":"input","id":3,"t":1020,"kind":"longPressEnd","x":150,"y":700}')
            _, _, refused = await stranger.wait_type("refused")
            assert refused["input"] == 3
            assert "rowMoved" not in stranger.types()
            await stranger.close()
            await room.assert_unharmed()
    run(scenario())


def test_compressible_messages_that_crashed_the_inflater_do_not_stop_the_server(scrollcast_server, room_name):
    """With permessage-deflate on, libwebsockets 4.1.6 aborted the whole server on a text message
    of ~4 KiB of one letter (an assert in its inflater, reachable by any client). The server no
    longer accepts the extension; these messages are now just bad messages."""
    async def scenario():
        async with Room(scrollcast_server.ws_url, room_name) as room:
            raw = RawWebSocket(scrollcast_server.port,
                               extra_headers="Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n")
            raw.close()
            assert raw.upgraded and b"sec-websocket-extensions" not in raw.head.lower()
            for size in [4096 + d for d in range(0, 12)] + [16384 + 16, 40000]:
                stranger = await Viewer.open(scrollcast_server.ws_url)  # offers deflate, as browsers do
                await stranger.ws.send("y" * size)
                code, _ = await stranger.wait_closed()
                assert code in (1008, 1009), (size, code)
            assert scrollcast_server.proc.poll() is None, "the server is still running"
            await room.assert_unharmed(stranger_joined=False)
    run(scenario())
