"""Protocol errors, limits and shutdown against the real server."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from server_helpers import ClientClock, Viewer, run


def test_sigterm_closes_every_viewer_with_1001_and_exits_0(server_factory):
    server = server_factory()

    async def scenario():
        viewers = [await Viewer.join(server.ws_url, room) for room in ("one", "one", "two")]
        for v in viewers:
            await v.wait_type("snapshot")
        server.proc.terminate()
        closes = await asyncio.gather(*(v.wait_closed() for v in viewers))
        assert all(code == 1001 for code, _ in closes), closes

    run(scenario())
    assert server.proc.wait(timeout=10) == 0


def test_sigint_exits_0(server_factory):
    server = server_factory()
    server.proc.send_signal(2)
    assert server.proc.wait(timeout=10) == 0


@pytest.mark.parametrize("message", [
    '{"type":"input","id":1,"t":0,"kind":"wheel","dx":0,"dy":1,"mode":"pixel"}',  # before join
    '{"type":"join"}',
    '{"type":"join","room":"no spaces"}',
    'not json',
    '{"type":"warp"}',
])
def test_malformed_messages_get_error_then_close_1008(scrollcast_server, message):
    async def scenario():
        v = await Viewer.open(scrollcast_server.ws_url)
        await v.ws.send(message)
        code, reason = await v.wait_closed()
        assert v.types() == ["error"], v.types()
        assert code == 1008 and reason
        assert v.received[0][1]["message"]
    run(scenario())


def test_invalid_input_field_is_an_error_and_close(scrollcast_server, room_name):
    async def scenario():
        v = await Viewer.join(scrollcast_server.ws_url, room_name)
        await v.wait_type("snapshot")
        await v.ws.send('{"type":"input","id":1,"t":0,"kind":"pointerDown","x":"left","y":3}')
        code, _ = await v.wait_closed()
        errors = [o for _, o in v.received if o["type"] == "error"]
        assert errors, v.types()
        error = errors[0]
        assert "x" in error["message"]
        assert code == 1008
    run(scenario())


def test_upgrade_without_the_subprotocol_is_refused(scrollcast_server):
    async def scenario():
        with pytest.raises(InvalidHandshake):
            async with connect(scrollcast_server.ws_url, open_timeout=10):
                pass
    run(scenario())


def test_upgrade_from_a_foreign_origin_is_refused(scrollcast_server):
    async def scenario():
        with pytest.raises(InvalidHandshake):
            async with connect(scrollcast_server.ws_url, subprotocols=["scrollcast.v1"],
                               origin="http://evil.example", open_timeout=10):
                pass
        # The server's own origin is fine.
        async with connect(scrollcast_server.ws_url, subprotocols=["scrollcast.v1"],
                           origin=scrollcast_server.base_url, open_timeout=10) as ws:
            await ws.send('{"type":"join","room":"origin-ok"}')
            assert '"snapshot"' in await asyncio.wait_for(ws.recv(), 10)
    run(scenario())


FLOOD_PER_SECOND = 500   # twice the server's input limit (ServerLimits.inputsPerSecond)


def test_input_flood_is_refused_then_closed_1008(scrollcast_server, room_name):
    """A flood past the limit is refused; a client that goes on flooding is closed with 1008.
    The flood is paced by the client's clock (FLOOD_PER_SECOND, twice the limit), at most 20
    inputs at a time: never slower than the limit however long a loaded machine's sleeps take
    (a 2 ms sleep once took so long the flood fell under it), and never a backlog of unread flood
    when the server closes (closing a socket with unread data resets it and loses the close)."""
    async def scenario():
        v = await Viewer.join(scrollcast_server.ws_url, room_name)
        await v.wait_type("snapshot")
        clock = ClientClock()
        start, sent = time.monotonic(), 0
        try:
            while time.monotonic() - start < 30:
                due = int((time.monotonic() - start) * FLOOD_PER_SECOND)
                for _ in range(min(due - sent, 20)):
                    await v.input("wheel", clock.now(), dx=0, dy=1, mode="pixel")
                    sent += 1
                await asyncio.sleep(0.002)
        except ConnectionClosed:
            pass
        code, reason = await v.wait_closed()
        refused = [o for _, o in v.received if o["type"] == "refused"]
        assert refused and all("too many inputs" in r["reason"] for r in refused), v.types()
        assert code == 1008 and "rate" in reason, (code, reason)
    run(scenario())


def test_help_explains_every_flag():
    out = subprocess.run([os.environ["SCROLLCAST_BIN"], "--help"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0
    for flag in ["--host", "--port", "--public", "--fps", "--max-viewers", "--max-rooms", "--log-level",
                 "--allowed-origins", "--room-grace", "--drive-request-lifetime", "--data"]:
        assert flag in out.stdout, flag


@pytest.mark.parametrize("flags,complaint", [
    (["--fps", "0"], "--fps"),
    (["--fps", "241"], "--fps"),
    (["--log-level", "loud"], "--log-level"),
    (["--drive-request-lifetime", "0"], "--drive-request-lifetime"),
    (["--public", "/no/such/dir"], "/no/such/dir"),
])
def test_bad_flags_are_refused_clearly(flags, complaint):
    out = subprocess.run([os.environ["SCROLLCAST_BIN"], "--port", "0", *flags], capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert complaint in out.stderr
