"""Half-open and idle connections, full servers, SIGTERM under load, clients killed mid-stream."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time

from raw_websocket import PING, RawWebSocket
from server_helpers import ClientClock, Viewer, run


def test_a_peer_that_never_answers_pings_is_dropped_and_a_live_one_is_kept(server_factory):
    server = server_factory("--ping-interval", "1")  # hidden flag: ping after 1 s, hang up after 3 s

    async def scenario():
        live = await Viewer.join(server.ws_url, "idle")  # Python websockets answers pings
        await live.wait_type("snapshot")
        silent = RawWebSocket(server.port)            # completes the handshake, then plays dead
        silent.send_text(json.dumps({"type": "join", "room": "idle"}))
        await live.wait_type("presence", where=lambda p: p["viewers"] == 2)
        started = time.monotonic()
        # The silent peer reads what comes (so nothing backs up) but never pongs.
        code, _, frames = await asyncio.to_thread(silent.read_until_close, 30)
        silent.close()
        assert any(opcode == PING for opcode, _ in frames), "the server pinged"
        await live.wait_type("presence", timeout=30, where=lambda p: p["viewers"] == 1)
        waited = time.monotonic() - started
        # The live viewer, silent too but answering pings, is still there after several intervals.
        assert waited >= 2 and live.close_code is None
        wheel = await live.input("wheel", ClientClock().now(), dx=0, dy=10, mode="pixel")
        await live.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == wheel)
        await live.close()
    run(scenario())


def test_a_connection_that_never_joins_is_closed_after_the_join_deadline(scrollcast_server):
    raw = RawWebSocket(scrollcast_server.port)
    assert raw.upgraded
    code, reason, frames = raw.read_until_close(30)
    raw.close()
    assert code == 1008 and "join" in reason
    assert frames[:-1] == [], "nothing is sent before join"


def test_too_many_viewers_is_1013_and_the_others_are_unaffected(server_factory):
    server = server_factory("--max-viewers", "3")

    async def scenario():
        viewers = [await Viewer.join(server.ws_url, "full") for _ in range(3)]
        for v in viewers:
            await v.wait_type("snapshot")
        for _ in range(5):
            extra = await Viewer.open(server.ws_url)
            code, reason = await extra.wait_closed()
            assert code == 1013 and "full" in reason and "viewers" in reason, (code, reason)
        wheel = await viewers[0].input("wheel", ClientClock().now(), dx=0, dy=50, mode="pixel")
        for v in viewers:
            await v.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == wheel)
            assert v.close_code is None
        # A seat freed is a seat taken.
        await viewers[2].close()
        again = await Viewer.join(server.ws_url, "full")
        await again.wait_type("snapshot")
        for v in viewers[:2] + [again]:
            await v.close()
    run(scenario())


def test_too_many_rooms_is_1013_and_the_others_are_unaffected(server_factory):
    server = server_factory("--max-rooms", "2")

    async def scenario():
        a = await Viewer.join(server.ws_url, "one")
        b = await Viewer.join(server.ws_url, "two")
        await a.wait_type("snapshot")
        await b.wait_type("snapshot")
        third = await Viewer.join(server.ws_url, "three")
        code, reason = await third.wait_closed()
        assert code == 1013 and "rooms" in reason, (code, reason)
        assert third.types() == []
        same = await Viewer.join(server.ws_url, "one")  # an existing room can still be joined
        await same.wait_type("snapshot")
        wheel = await b.input("wheel", ClientClock().now(), dx=0, dy=50, mode="pixel")
        await b.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == wheel)
        assert a.close_code is None and b.close_code is None
        for v in (a, b, same):
            await v.close()
    run(scenario())


def test_sigterm_under_load_closes_everyone_with_1001_and_exits_0(server_factory):
    server = server_factory()

    async def scenario():
        rooms = [f"load-{i}" for i in range(5)]
        viewers = [await Viewer.join(server.ws_url, rooms[i % 5]) for i in range(40)]
        for v in viewers:
            await v.wait_type("snapshot")
        stuck = [RawWebSocket(server.port, receive_buffer=2048) for _ in range(5)]  # never read
        for raw in stuck:
            raw.send_text(json.dumps({"type": "join", "room": rooms[0]}))
        drivers = viewers[:5]  # one per room, all scrolling
        clock = ClientClock()
        for _ in range(30):
            for d in drivers:
                await d.input("wheel", clock.now(), dx=0, dy=60, mode="pixel")
            await asyncio.sleep(0.02)  # pacing the wheel
        await viewers[-1].wait_type("frame")
        server.proc.send_signal(signal.SIGTERM)
        closes = await asyncio.gather(*(v.wait_closed(20) for v in viewers))
        for raw in stuck:
            raw.close()
        return closes

    closes = run(scenario())
    assert all(code == 1001 for code, _ in closes), closes
    assert all("shutting down" in reason for _, reason in closes)
    assert server.proc.wait(timeout=20) == 0


CLIENT = r'''
import asyncio, json, sys
from websockets.asyncio.client import connect
async def main(url, room):
    async with connect(url, subprotocols=["scrollcast.v1"], max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "join", "room": room}))
        await ws.recv()
        print("joined", flush=True)
        async for raw in ws:
            pass
asyncio.run(main(*sys.argv[1:]))
'''


def test_clients_killed_mid_stream_do_not_disturb_the_others(server_factory):
    server = server_factory()
    clients = [subprocess.Popen([sys.executable, "-c", CLIENT, server.ws_url, "kill"], stdout=subprocess.PIPE, text=True)
               for _ in range(10)]
    try:
        for c in clients:
            assert c.stdout.readline().strip() == "joined"

        async def scenario():
            driver = await Viewer.join(server.ws_url, "kill")
            watcher = await Viewer.join(server.ws_url, "kill")
            await driver.wait_type("snapshot")
            await watcher.wait_type("snapshot")
            clock = ClientClock()
            killed = False
            for i in range(150):
                await driver.input("wheel", clock.now(), dx=0, dy=40, mode="pixel")
                if i == 50:
                    for c in clients:
                        c.send_signal(signal.SIGKILL)  # mid-stream: frames are flowing to them
                    killed = True
                await asyncio.sleep(0.02)  # pacing the wheel
            assert killed
            _, _, gone = await watcher.wait_type("presence", where=lambda p: p["viewers"] == 2)
            last = await driver.input("wheel", clock.now(), dx=0, dy=40, mode="pixel")
            await watcher.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == last)
            seqs = [f["seq"] for _, f in watcher.frames()]
            assert seqs == sorted(seqs) and len(seqs) > 100
            assert driver.close_code is None and watcher.close_code is None
            await driver.close()
            await watcher.close()
        run(scenario())
        assert server.proc.poll() is None
    finally:
        for c in clients:
            c.kill()
            c.wait(10)
