"""Measuring a link from outside (for test_link_emulator.py): a stamp server and its clients.

Both ends send 16-byte records (connection, seq, send time on time.monotonic_ns) at a steady interval and note
when each record arrives, so the one-way delay of every record in each direction is known exactly
(one machine, one clock). The server is a real TCP server on a free loopback port; the clients
connect to it through the proxy under test. One more client connects to the server directly: the
gauge of this machine's own noise (Python threads waking late on a busy machine), so a measurement
taken while the machine stalled can be told apart and taken again (`measure`).
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from dataclasses import dataclass, field

RECORD = struct.Struct("<IIQ")


@dataclass
class Arrivals:
    """Records that arrived on one direction of one connection: (seq, sent_ns, arrived_ns)."""

    records: list[tuple[int, int, int]] = field(default_factory=list)
    garbled: bool = False
    #: The client's index, from the first record (the server learns it this way).
    connection: int | None = None

    def delays_ms(self) -> list[float]:
        return [(arrived - sent) / 1e6 for _, sent, arrived in self.records]

    def seqs(self) -> list[int]:
        return [seq for seq, _, _ in self.records]


def _send_stamps(sock: socket.socket, connection: int, count: int, interval: float, payload: int):
    """`count` records `interval` seconds apart (each padded with `payload` bytes), then half-close."""
    start = time.monotonic()
    padding = b"\0" * payload
    try:
        for seq in range(count):
            # Paced from the start time, so one late wake-up does not shift every later record.
            delay = start + seq * interval - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            sock.sendall(RECORD.pack(connection, seq, time.monotonic_ns()) + padding)
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _read_stamps(sock: socket.socket, into: Arrivals, payload: int):
    """Reads records until the peer closes, noting the time each one completed."""
    size = RECORD.size + payload
    buffer = b""
    expected = 0
    try:
        while True:
            data = sock.recv(65536)
            now = time.monotonic_ns()
            if not data:
                return
            buffer += data
            while len(buffer) >= size:
                connection, seq, sent = RECORD.unpack_from(buffer)
                if into.connection is None:
                    into.connection = connection
                if connection != into.connection or seq != expected or buffer[RECORD.size:size] != b"\0" * payload:
                    into.garbled = True
                into.records.append((seq, sent, now))
                expected = seq + 1
                buffer = buffer[size:]
    except OSError:
        pass


def _pair(sock: socket.socket, arrivals: Arrivals, connection: int, count: int | None, interval: float,
          payload: int) -> list[threading.Thread]:
    """A reader, and a sender of `count` records (none, and no end either, when count is None)."""
    threads = [threading.Thread(target=_read_stamps, args=(sock, arrivals, payload), daemon=True)]
    if count is not None:
        threads.append(threading.Thread(target=_send_stamps, args=(sock, connection, count, interval, payload), daemon=True))
    for thread in threads:
        thread.start()
    return threads


class StampServer:
    """Accepts connections; on each it sends `count` records downstream (with count None: nothing,
    and the connection stays open) and reads the upstream ones. `up` holds, per accepted connection in order, what arrived from the client."""

    def __init__(self, count: int | None = 0, interval: float = 0.01, payload: int = 0):
        self.count, self.interval, self.payload = count, interval, payload
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=256)
        self.port = self.listener.getsockname()[1]
        self.up: list[Arrivals] = []
        self.threads: list[threading.Thread] = []
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            arrivals = Arrivals()
            self.up.append(arrivals)
            self.sockets.append(sock)
            self.threads += _pair(sock, arrivals, len(self.up) - 1, self.count, self.interval, self.payload)

    def close(self):
        self.listener.close()
        for sock in self.sockets:
            sock.close()


@dataclass
class Measurement:
    """Arrivals through the proxy, one per connection in each direction, and the gauge's."""

    up: list[Arrivals]
    down: list[Arrivals]
    gauge: list[Arrivals]

    def delays_ms(self) -> list[float]:
        return [d for arrivals in self.up + self.down for d in arrivals.delays_ms()]

    def noise_ms(self) -> float:
        """How late this machine delivered records on the direct path (p90, both directions)."""
        delays = [d for arrivals in self.gauge for d in arrivals.delays_ms()]
        return percentile(delays, 0.9) if delays else 0.0


def exchange(port: int, server: StampServer, connections: int, count: int, interval: float,
             payload: int = 0, timeout: float = 30) -> Measurement:
    """Opens `connections` connections to `port` (through the proxy) and one straight to the server
    (the gauge), each sending `count` records up while the server sends its own down; returns the
    arrivals once both directions of every connection have ended."""
    down = [Arrivals() for _ in range(connections + 1)]
    threads: list[threading.Thread] = []
    sockets = []
    first = len(server.up)
    for index in range(connections + 1):
        target = port if index < connections else server.port
        sock = socket.create_connection(("127.0.0.1", target), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sockets.append(sock)
        threads += _pair(sock, down[index], index, count, interval, payload)
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    # The server's readers end when the proxy passes each client's end on.
    while time.monotonic() < deadline and not (len(server.up) > first + connections and all(not t.is_alive() for t in server.threads)):
        time.sleep(0.01)  # polling the server's threads, bounded by the deadline
    for sock in sockets:
        sock.close()
    ours = server.up[first:]
    assert len(ours) == connections + 1, f"the server saw {len(ours)} of {connections + 1} connections"
    up = sorted(ours, key=lambda arrivals: arrivals.connection if arrivals.connection is not None else -1)
    return Measurement(up=up[:connections], down=down[:connections], gauge=[up[connections], down[connections]])


def measure(port: int, server: StampServer, quiet_ms: float = 5.0, attempts: int = 3, **kw) -> Measurement:
    """`exchange`, taken again (up to `attempts` times) while the gauge shows the machine itself
    delivering records more than `quiet_ms` late; returns the quietest attempt."""
    best = None
    for _ in range(attempts):
        measurement = exchange(port, server, **kw)
        if best is None or measurement.noise_ms() < best.noise_ms():
            best = measurement
        if measurement.noise_ms() <= quiet_ms:
            break
    return best


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]
