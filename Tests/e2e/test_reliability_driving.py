"""Who may drive: locked rooms, server-made driver keys, and gestures a departing driver leaves."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from server_helpers import ClientClock, Viewer, drag, run, settle

HERE = Path(__file__).resolve().parent


def test_a_locked_room_lets_only_key_holders_drive(scrollcast_server, room_name):
    async def scenario():
        url = scrollcast_server.ws_url
        # The creator's own "key" is ignored: the server makes an unguessable one.
        owner = await Viewer.join(url, room_name, lock=True, driverKey="guessable")
        _, _, snap = await owner.wait_type("snapshot")
        key = snap.get("driverKey")
        assert key and key != "guessable"
        assert re.fullmatch(r"[0-9a-f]{64}", key), key  # 32 random bytes, hex

        watcher = await Viewer.join(url, room_name)
        _, _, watcher_snap = await watcher.wait_type("snapshot")
        assert "driverKey" not in watcher_snap
        guesser = await Viewer.join(url, room_name, driverKey="guessable")
        _, _, guesser_snap = await guesser.wait_type("snapshot")
        assert "driverKey" not in guesser_snap
        almost = await Viewer.join(url, room_name, driverKey=key[:-1] + ("0" if key[-1] != "0" else "1"))
        await almost.wait_type("snapshot")
        codriver = await Viewer.join(url, room_name, driverKey=key)
        await codriver.wait_type("snapshot")

        clock = ClientClock()
        rows = snap["frame"]["rows"]
        row = next(r for r in rows if r["y"] > 300)
        for outsider in (watcher, guesser, almost):
            tried = [
                await outsider.input("wheel", clock.now(), dx=0, dy=100, mode="pixel"),
                await outsider.input("pointerDown", clock.now(), x=200, y=600),
                await outsider.input("longPressBegan", clock.now(), x=150, y=row["y"] + row["h"] / 2),
                await outsider.input("key", clock.now(), key="end"),
                await outsider.input("scrollToRow", clock.now(), section=0, row=0, position="top", animated=False),
                await outsider.input("resize", clock.now(), width=800, height=600),
            ]
            for input_id in tried:
                _, _, refused = await outsider.wait_type("refused", where=lambda r, i=input_id: r["input"] == i)
                assert "locked" in refused["reason"] and "driver key" in refused["reason"]
            assert outsider.close_code is None, "watchers stay connected"

        # Nothing the outsiders sent moved the room; the key holders drive it.
        assert not [f for _, f in watcher.frames()], "no frame came from an outsider's input"
        up = await drag(owner, clock, x=200, y0=700, y1=400)
        await settle(owner, up)
        await codriver.wait_type("presence", where=lambda p: p["driver"] is None)
        wheel = await codriver.input("wheel", clock.now(), dx=0, dy=100, mode="pixel")
        _, _, frame = await watcher.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == wheel
                                              and f["input"]["viewer"] != snap["viewer"])
        assert not [o for _, o in owner.received + codriver.received if o["type"] == "refused"]

        # The key never reaches the log or /metrics.
        with urllib.request.urlopen(scrollcast_server.base_url + "/metrics", timeout=10) as response:
            assert key not in response.read().decode()
        assert not [line for line in scrollcast_server.stderr_lines if key in line]
        for v in (owner, watcher, guesser, almost, codriver):
            await v.close()
    run(scenario())


def test_each_locked_room_gets_its_own_key(scrollcast_server, room_name):
    async def scenario():
        keys = {}
        owners = []
        for i in range(5):
            v = await Viewer.join(scrollcast_server.ws_url, f"{room_name}-{i}", lock=True)
            _, _, snap = await v.wait_type("snapshot")
            keys[i] = snap["driverKey"]
            owners.append(v)
        assert len(set(keys.values())) == 5
        # The key of room 1 does not open room 0.
        other = await Viewer.join(scrollcast_server.ws_url, f"{room_name}-0", driverKey=keys[1])
        await other.wait_type("snapshot")
        probe = await other.input("wheel", 1000, dx=0, dy=10, mode="pixel")
        _, _, refused = await other.wait_type("refused", where=lambda r: r["input"] == probe)
        assert "locked" in refused["reason"]
        for v in owners + [other]:
            await v.close()
    run(scenario())


def test_an_unlocked_room_stays_unlocked_when_a_late_joiner_asks_for_a_lock(scrollcast_server, room_name):
    async def scenario():
        first = await Viewer.join(scrollcast_server.ws_url, room_name)
        await first.wait_type("snapshot")
        late = await Viewer.join(scrollcast_server.ws_url, room_name, lock=True)
        _, _, snap = await late.wait_type("snapshot")
        assert "driverKey" not in snap, "only the join that creates a room can lock it"
        wheel = await first.input("wheel", 1000, dx=0, dy=10, mode="pixel")
        await first.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == wheel)
        await first.close()
        await late.close()
    run(scenario())


CLIENT = r'''
import asyncio, json, sys
from websockets.asyncio.client import connect
async def main(url, room, script):
    async with connect(url, subprotocols=["scrollcast.v1"]) as ws:
        await ws.send(json.dumps({"type": "join", "room": room}))
        snap = json.loads(await ws.recv())
        for message in json.loads(script):
            if message == "hold":
                await asyncio.sleep(0.65)   # a user's long press lasts this long
                continue
            await ws.send(json.dumps(message))
        print("sent", flush=True)
        async for raw in ws:                 # keep reading until killed
            pass
asyncio.run(main(*sys.argv[1:]))
'''


def start_client(url: str, room: str, script: list) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", CLIENT, url, room, json.dumps(script)],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "sent"
    return process


def test_a_driver_killed_mid_move_puts_the_row_back_and_frees_the_room(scrollcast_server, room_name):
    async def scenario():
        watcher = await Viewer.join(scrollcast_server.ws_url, room_name)
        _, _, snap = await watcher.wait_type("snapshot")
        order = snap["scene"]["sections"]
        row = next(r for r in snap["frame"]["rows"] if r["y"] > 300)
        x, y = 150, row["y"] + row["h"] / 2
        script = [{"type": "input", "id": 1, "t": 1000, "kind": "pointerDown", "x": x, "y": y}, "hold",
                  {"type": "input", "id": 2, "t": 1650, "kind": "pointerMove", "x": x, "y": y + 1}]
        script += [{"type": "input", "id": 3 + i, "t": 1660 + 16 * i, "kind": "pointerMove", "x": x, "y": y + 20 * (i + 1)}
                   for i in range(8)]
        driver = await asyncio.to_thread(start_client, scrollcast_server.ws_url, room_name, script)
        try:
            _, _, lifted = await watcher.wait_type("frame", where=lambda f: f["lifted"] is not None)
            _, _, held = await watcher.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == 10)
            assert held["lifted"]["id"] == row["id"], "the row is lifted"
            assert (held["placeholder"]["s"], held["placeholder"]["r"]) != (row["s"], row["r"]), "and mid-move"
            start = len(watcher.received)
            driver.send_signal(signal.SIGKILL)  # no close frame: the TCP connection just ends
            await watcher.wait_type("presence", start=start, where=lambda p: p["driver"] is None and p["viewers"] == 1)
            # The gesture ended as a cancel: the row settles back where it was, nothing moved.
            _, _, rest = await watcher.wait_type("frame", start=start, where=lambda f: f["lifted"] is None
                                                 and not f["animating"])
            assert rest["placeholder"] is None
            assert all((r["s"], r["r"]) == (row["s"], row["r"]) for r in rest["rows"] if r["id"] == row["id"])
            assert "rowMoved" not in watcher.types()
            # Another viewer may drive at once, and the order is unchanged.
            down = await watcher.input("pointerDown", 5000, x=200, y=600)
            await watcher.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == down)
            await watcher.input("pointerUp", 5010, x=200, y=600)
            late = await Viewer.join(scrollcast_server.ws_url, room_name)
            _, _, late_snap = await late.wait_type("snapshot")
            assert late_snap["scene"]["sections"] == order
            assert not [o for _, o in watcher.received if o["type"] == "refused"]
            await late.close()
        finally:
            driver.kill()
            driver.wait(10)
        await watcher.close()
    run(scenario())


def test_a_driver_killed_mid_drag_frees_the_room_at_once(scrollcast_server, room_name):
    async def scenario():
        watcher = await Viewer.join(scrollcast_server.ws_url, room_name)
        await watcher.wait_type("snapshot")
        script = [{"type": "input", "id": 1, "t": 1000, "kind": "pointerDown", "x": 200, "y": 700}]
        script += [{"type": "input", "id": 2 + i, "t": 1016 + 16 * i, "kind": "pointerMove", "x": 200, "y": 680 - 20 * i}
                   for i in range(10)]
        driver = await asyncio.to_thread(start_client, scrollcast_server.ws_url, room_name, script)
        try:
            _, _, presence = await watcher.wait_type("presence", where=lambda p: p["driver"] is not None)
            await watcher.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == 11)
            start = len(watcher.received)
            driver.send_signal(signal.SIGKILL)
            await watcher.wait_type("presence", start=start, where=lambda p: p["driver"] is None)
            down = await watcher.input("pointerDown", 5000, x=200, y=600)
            await watcher.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == down)
            await watcher.input("pointerUp", 5010, x=200, y=600)
            assert not [o for _, o in watcher.received if o["type"] == "refused"]
        finally:
            driver.kill()
            driver.wait(10)
        await watcher.close()
    run(scenario())
