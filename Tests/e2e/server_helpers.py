"""A small protocol test client over Python `websockets` (for Tests/e2e/test_server_*.py). It speaks
version 1 unless opened with `protocol="v2"`; either way it keeps messages as version 1's dicts
(version 2's binary ones decoded by wire_v2.py)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import re
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from wire_v2 import WireV2Decoder

SUBPROTOCOL = "scrollcast.v1"
REPO = Path(__file__).resolve().parents[2]
PUBLIC = REPO / "Public"
LISTENING = re.compile(r"^scrollcast listening on (http://\S+?):(\d+)\s*$")
# A file's content version as the server writes it into a page's src and href (docs/design.md, "Static files").
VERSION = re.compile(rb"\?v=[0-9a-f]{16}(?=\")")


def without_versions(page: bytes) -> bytes:
    """A served page as its file on disk is written: the versions the server adds taken out."""
    return VERSION.sub(b"", page)


def stop_process(proc: subprocess.Popen) -> int:
    """SIGTERM, then wait (SIGKILL after 10 s); returns the exit status."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    return proc.returncode


class RunningServer:
    """A scrollcast child process ($SCROLLCAST_BIN) and where it listens. It starts on a free
    port (`--port 0`) unless given one; `stop()` then `start(port)` restarts it on the same port.
    Rooms live in memory only (`--data none`) unless `data` names a file for them (or the flags
    pass `--data` themselves), so a test never finds another run's rooms."""

    def __init__(self, *flags: str, public: Path = PUBLIC, port: int = 0, data: str | Path | None = None):
        self.binary = os.environ.get("SCROLLCAST_BIN")
        if not self.binary:
            pytest.fail("SCROLLCAST_BIN is not set (e.g. SCROLLCAST_BIN=.build/debug/scrollcast)")
        if "--data" not in flags:
            flags = (*flags, "--data", str(data) if data is not None else "none")
        self.flags = flags
        self.public = public
        self.stderr_lines: list[str] = []
        self.start(port)

    def start(self, port: int = 0, attempts: int = 50) -> str:
        """Starts the server and returns its base URL. A fixed port just freed by `stop()` can
        still be busy for a moment, so binding to it is retried."""
        last_error = ""
        for _ in range(attempts):
            cmd = [self.binary, "--host", "127.0.0.1", "--port", str(port), "--public", str(self.public), *self.flags]
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
            first = proc.stdout.readline()  # blocks until the server prints it (or dies: "")
            match = LISTENING.match(first)
            if match:
                self.proc = proc
                self.base_url = f"{match.group(1)}:{match.group(2)}"
                self.port = int(match.group(2))
                self.ws_url = f"ws://127.0.0.1:{self.port}/ws"
                # Drain both pipes so a chatty server never blocks on a full pipe.
                threading.Thread(target=self._drain, args=(proc.stdout, None), daemon=True).start()
                threading.Thread(target=self._drain, args=(proc.stderr, self.stderr_lines), daemon=True).start()
                return self.base_url
            proc.kill()
            _, err = proc.communicate(timeout=10)
            last_error = f"{first!r} {err}"
            if port == 0:
                break
            time.sleep(0.1)  # the old process's port is being released; not a synchronisation stand-in
        raise RuntimeError(f"scrollcast did not start: {last_error}")

    @staticmethod
    def _drain(stream, sink):
        for line in stream:
            if sink is not None:
                sink.append(line)

    def stop(self) -> int:
        """SIGTERM, then wait; returns the exit status."""
        return stop_process(self.proc)


class Viewer:
    """One WebSocket viewer: everything it receives is kept, raw and parsed, in order."""

    def __init__(self, ws, decoder: WireV2Decoder | None = None):
        self.ws = ws
        # Binary messages are version 2's (decoded in order: texts feed the frames after them). A
        # resuming client passes the decoder of its previous connection: it keeps its texts.
        self.decoder = (decoder or WireV2Decoder()) if ws.subprotocol == "scrollcast.v2" else None
        self.received: list[tuple[str | bytes, dict]] = []
        self._arrived = asyncio.Condition()
        self._closed = False
        self._next_id = 1
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, ws_url: str, protocol: str = "v1", decoder: WireV2Decoder | None = None,
                   **connect_args) -> "Viewer":
        ws = await connect(ws_url, subprotocols=[f"scrollcast.{protocol}"], max_size=2**22, **connect_args)
        return cls(ws, decoder)

    @classmethod
    async def join(cls, ws_url: str, room: str, protocol: str = "v1", **join_fields) -> "Viewer":
        viewer = await cls.open(ws_url, protocol)
        await viewer.send({"type": "join", "room": room, **join_fields})
        return viewer

    async def _read(self):
        try:
            async for raw in self.ws:
                async with self._arrived:
                    self.received.append((raw, self._parse(raw)))
                    self._arrived.notify_all()
        except ConnectionClosed:
            pass
        finally:
            async with self._arrived:
                self._closed = True
                self._arrived.notify_all()

    def _parse(self, raw) -> dict:
        if isinstance(raw, str):
            return json.loads(raw)
        if self.decoder is not None:
            return self.decoder.decode(raw)
        return {"type": "<binary>"}

    async def send(self, message: dict):
        await self.ws.send(json.dumps(message))

    async def input(self, kind: str, t: float, **fields) -> int:
        """Sends an input with the next id; returns the id."""
        input_id = self._next_id
        self._next_id += 1
        await self.send({"type": "input", "id": input_id, "t": t, "kind": kind, **fields})
        return input_id

    async def wait_for(self, predicate, timeout: float = 10.0, start: int = 0) -> tuple[int, str, dict]:
        """Waits for the first message at index ≥ start matching predicate(obj); returns (index, raw, obj).
        Fails if the connection closes or the timeout passes first."""
        deadline = time.monotonic() + timeout
        async with self._arrived:
            while True:
                for index in range(start, len(self.received)):
                    raw, obj = self.received[index]
                    if predicate(obj):
                        return index, raw, obj
                if self._closed:
                    raise AssertionError(f"connection closed ({self.close_code} {self.close_reason!r}) while waiting; got {self.types()}")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"timed out waiting; got {self.types()}")
                try:
                    await asyncio.wait_for(self._arrived.wait(), remaining)
                except asyncio.TimeoutError:
                    pass

    async def wait_type(self, type_: str, timeout: float = 10.0, start: int = 0, where=lambda m: True):
        return await self.wait_for(lambda m: m.get("type") == type_ and where(m), timeout, start)

    async def wait_closed(self, timeout: float = 10.0):
        await asyncio.wait_for(self._reader, timeout)
        return self.close_code, self.close_reason

    async def assert_silent(self, seconds: float):
        """Asserts that nothing arrives for `seconds` (an assertion of absence)."""
        count = len(self.received)
        await asyncio.sleep(seconds)
        extra = [obj.get("type") for _, obj in self.received[count:]]
        assert not extra, f"expected silence, got {extra}"

    def types(self) -> list[str]:
        return [obj.get("type") for _, obj in self.received]

    def frames(self) -> list[tuple[str, dict]]:
        return [(raw, obj) for raw, obj in self.received if obj.get("type") == "frame"]

    @property
    def close_code(self):
        return self.ws.close_code

    @property
    def close_reason(self):
        return self.ws.close_reason

    async def close(self):
        await self.ws.close()
        await asyncio.wait_for(self._reader, 10)


async def join_two_viewers(ws_url: str, room: str) -> tuple[Viewer, Viewer, dict]:
    """Two viewers in one room, the first joined before the second, both holding their snapshot.
    Returns (first, second, the first's snapshot)."""
    first = await Viewer.join(ws_url, room)
    second = await Viewer.join(ws_url, room)
    _, _, snapshot = await first.wait_type("snapshot")
    await second.wait_type("snapshot")
    return first, second, snapshot


class ClientClock:
    """Client timestamps `t` (ms), as a page's event.timeStamp would give."""

    def __init__(self, start: float = 10_000.0):
        self.origin = time.monotonic()
        self.start = start

    def now(self) -> float:
        return self.start + (time.monotonic() - self.origin) * 1000


async def drag(viewer: Viewer, clock: ClientClock, x: float, y0: float, y1: float, steps: int = 12,
               interval: float = 0.016, release: bool = True):
    """A pointer drag from y0 to y1, paced like a user's (one move per display frame).
    Returns the id of the last input sent.

    The events are stamped `interval` apart as a browser stamps them, whatever this process's
    scheduling: on a loaded machine a sleep can overrun by 100 ms, and a move stamped that late
    made the release slow, so the drag did not fling (a test waiting for the fling timed out).
    The stamps never run ahead of `clock` (each sleep lasts at least `interval`)."""
    start = clock.now()
    last = await viewer.input("pointerDown", start, x=x, y=y0)
    for i in range(1, steps + 1):
        await asyncio.sleep(interval)
        last = await viewer.input("pointerMove", start + i * interval * 1000, x=x, y=y0 + (y1 - y0) * i / steps)
    if release:
        last = await viewer.input("pointerUp", start + steps * interval * 1000 + 1, x=x, y=y1)
    return last


async def fling(viewer: Viewer, clock: ClientClock, x: float, y0: float, y1: float, steps: int = 6,
                attempts: int = 3) -> int:
    """A drag that flies: `drag`, then again (up to `attempts` in all) while the room comes to rest
    at its release with no speed. Returns the id of the flying drag's last input, once the room
    decelerates. Its stamps keep a user's pace, but the room maps a stamp to its own clock no more
    than 250 ms behind the input's arrival (InputTimeMapper's `maxLag`): a release this process or
    the room held up longer than that lands late, the finger looks to have rested, and nothing
    flies. Seen on loaded machines (a fresh clone, three workers): no deceleration ever came."""
    me = next(obj for _, obj in viewer.received if obj.get("type") == "snapshot")["viewer"]
    for _ in range(attempts):
        start = len(viewer.received)
        released = await drag(viewer, clock, x=x, y0=y0, y1=y1, steps=steps)

        def flew_or_rested(frame) -> bool:
            named = frame.get("input") or {}
            rested = frame["animating"] is False and named.get("viewer") == me and named.get("id", 0) >= released
            return frame["phase"] == "decelerating" or rested

        _, _, frame = await viewer.wait_type("frame", start=start, where=flew_or_rested)
        if frame["phase"] == "decelerating":
            return released
    raise AssertionError(f"no fling in {attempts} drags: each release came with no speed")


async def settle(viewer: Viewer, last_input: int, start: int = 0) -> int:
    """Waits until the room comes to rest after `last_input` (this viewer's input id): a frame that
    names it (or a later input) with animating = false. Returns that frame's index."""
    me = next(obj for _, obj in viewer.received if obj.get("type") == "snapshot")["viewer"]

    def at_rest(frame):
        named = frame.get("input") or {}
        return frame["animating"] is False and (named.get("viewer") != me or named.get("id", 0) >= last_input)

    index, _, _ = await viewer.wait_type("frame", timeout=30, start=start, where=at_rest)
    return index


async def move_row(viewer: Viewer, snapshot: dict, rows_down: int = 3,
                   clock: "ClientClock | None" = None) -> tuple[dict, int]:
    """Tap-and-hold a row fully on screen (where `snapshot`'s frame shows it), drag it
    `rows_down` rows lower and drop it, with timestamps from `clock` (a new one if None). Returns the moved row and the id of
    the last input."""
    rows = snapshot["frame"]["rows"]
    viewport = snapshot["scene"]["viewport"]
    candidates = [r for r in rows if 300 < r["y"] and r["y"] + r["h"] < viewport["height"] - 250]
    row = candidates[0]
    target = candidates[min(rows_down, len(candidates) - 1)]
    x, y = 150, row["y"] + row["h"] / 2
    clock = clock or ClientClock()
    t0 = clock.now()
    await viewer.input("pointerDown", t0, x=x, y=y)
    # A real long press: the server never maps t ahead of its own clock, so the hold must last.
    await asyncio.sleep(0.65)
    await viewer.input("pointerMove", max(clock.now(), t0 + 650), x=x, y=y + 1)
    await viewer.wait_type("frame", where=lambda f: f["lifted"] is not None)
    destination = target["y"] + target["h"] / 2 + 2
    steps = 10
    for i in range(1, steps + 1):
        await asyncio.sleep(0.016)
        await viewer.input("pointerMove", clock.now(), x=x, y=y + (destination - y) * i / steps)
    up = await viewer.input("pointerUp", clock.now(), x=x, y=destination)
    return row, up


async def long_press_move(viewer: Viewer, clock: ClientClock, y0: float, y1: float) -> tuple[int, int]:
    """An explicit long press at y0 carried to y1 and dropped; returns the ids of the press and
    of the drop."""
    began = await viewer.input("longPressBegan", clock.now(), x=150, y=y0)
    await viewer.input("longPressMove", clock.now(), x=150, y=y1)
    ended = await viewer.input("longPressEnd", clock.now(), x=150, y=y1)
    return began, ended


def order(snapshot: dict) -> list[list[int]]:
    return [section["rows"] for section in snapshot["scene"]["sections"]]


def metric(server: RunningServer, name: str) -> float:
    """The value of metric `name` (its first sample) on the server's /metrics; 0 if absent."""
    with urllib.request.urlopen(server.base_url + "/metrics", timeout=10) as response:
        text = response.read().decode()
    match = re.search(rf"^{name}(?:{{[^}}]*}})? (\S+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


async def until_metric(server: RunningServer, name: str, predicate, timeout: float = 10.0) -> float:
    """Reads /metrics every 50 ms until `predicate(value)` holds (a condition the server
    reports, polled; fails after `timeout` s). Returns the value."""
    deadline = time.monotonic() + timeout
    while True:
        value = await asyncio.get_running_loop().run_in_executor(None, metric, server, name)
        if predicate(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{name} stayed at {value}")
        await asyncio.sleep(0.05)  # polling interval of the condition above


def run(coro):
    """Runs a test scenario to completion (at most 60 s). In its own thread, because the browser
    tests' sync Playwright keeps an event loop running on the main thread."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(coro, 60)).result()
