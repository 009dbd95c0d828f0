"""A long room in a server's SQLite file, and raw HTTP readers of its recording (for
test_recording_export.py and bench/isolation.py)."""

from __future__ import annotations

import datetime
import socket
import sqlite3
import time
from pathlib import Path


def seed_long_room(data: str | Path, room: str, entries: int = 100_000) -> int:
    """Writes room `room` (scene demo, life 1) with `entries` log entries — a frame, then a
    wheel input, in turn — into the server's SQLite file (the server made its tables at start).
    Returns the recording's line count: the header and one line per entry."""
    db = sqlite3.connect(str(data), timeout=30)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.000")
    with db:
        # The server stages its newest entries in roomLogRecent with ids it chose above both
        # tables (docs/reliability.md, "What is stored"): take the write lock, then number ours
        # above every id so far, as the server would.
        db.execute("BEGIN IMMEDIATE")
        first = db.execute("SELECT max(coalesce((SELECT max(id) FROM roomLog), 0),"
                           " coalesce((SELECT max(id) FROM roomLogRecent), 0))").fetchone()[0] + 1
        db.execute("INSERT INTO room (name, sceneName, rowOrder, rowMoveVersion, life, createdAt, lastUsedAt)"
                   " VALUES (?, 'demo', '[]', 0, 1, ?, ?)", (room, now, now))
        rows = []
        for i in range(entries):
            t = 16.5 * (i + 1)
            if i % 2 == 0:
                rows.append((first + i, room, 1, "frame", None, None, t, i // 2 + 1, None))
            else:
                rows.append((first + i, room, 1, "input", "v1", i, t, None, f"wheel 0.0 {i % 7 + 1}.0 pixel"))
        db.executemany("INSERT INTO roomLog (id, room, life, entry, viewer, inputID, time, sequence, input)"
                       " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    db.close()
    return entries + 1


class RawGet:
    """A GET over a plain socket whose reading the caller paces: `head()` reads the status line
    and headers; `read(n)` up to n body bytes (chunk framing included). A small receive buffer
    keeps the kernel from soaking up what the server should be holding back."""

    def __init__(self, port: int, path: str, receive_buffer: int = 16 * 1024, timeout: float = 30):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", port))
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        self.buffer = b""

    def head(self) -> tuple[int, dict[str, str]]:
        while b"\r\n\r\n" not in self.buffer:
            data = self.sock.recv(4096)
            if not data:
                raise ConnectionError(f"closed before the headers: {self.buffer!r}")
            self.buffer += data
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        return int(lines[0].split()[1]), headers

    def read(self, n: int) -> bytes:
        if self.buffer:
            data, self.buffer = self.buffer[:n], self.buffer[n:]
            return data
        return self.sock.recv(n)

    def read_all(self, pace_bytes: int = 0, pause: float = 0.0) -> bytes:
        """The rest of the raw body until the server closes (chunk framing included); with
        `pace_bytes`, at most that many bytes then a `pause`, over and over: a slow reader."""
        parts = []
        while True:
            data = self.read(pace_bytes or 65536)
            if not data:
                return b"".join(parts)
            parts.append(data)
            if pause:
                time.sleep(pause)  # the slow reader's pace, not a synchronisation stand-in

    def close(self):
        self.sock.close()


def dechunk(raw: bytes) -> tuple[bytes, bool]:
    """A chunked body's bytes, and whether it ended with its final (zero) chunk."""
    body, rest = [], raw
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            return b"".join(body), True
        body.append(rest[:size])
        rest = rest[size + 2:]
    return b"".join(body), False
