"""A TCP relay between one scrollcast node and its Redis, for the fencing tests (docs/cluster.md,
"Fencing"): it passes everything both ways untouched until a test arms it. Armed, it holds
everything Redis sends on a connection from the moment that connection carries a lease renewal
(the `renew` script), until `release()`: so a test can freeze the node while its renewal has been
answered by Redis but not yet read, which is the window a thawed owner could mistake for a fresh
lease.

It reads the node's commands (RESP arrays of bulk strings, as hiredis sends them) only to spot
the renewal; Redis's replies are never parsed, just held from that command on, in order.
"""

from __future__ import annotations

import socket
import threading


def is_renewal(args: list[bytes]) -> bool:
    """`RedisClusterBackend.renew`: EVALSHA (or EVAL after a NOSCRIPT) with the room's lease and
    epoch keys and three arguments (lease value, TTL ms, epoch). The claim has the same keys and
    four arguments; every other script has other keys."""
    return (len(args) == 8 and args[0].upper() in (b"EVALSHA", b"EVAL") and args[2] == b"2"
            and args[3].endswith(b":lease") and args[4].endswith(b":epoch"))


class CommandSplitter:
    """Cuts a client's byte stream into whole RESP commands: (their bytes, their arguments)."""

    def __init__(self):
        self.buffer = b""

    def feed(self, data: bytes) -> list[tuple[bytes, list[bytes]]]:
        self.buffer += data
        commands = []
        while (command := self._take()) is not None:
            commands.append(command)
        return commands

    def _take(self) -> tuple[bytes, list[bytes]] | None:
        buf = self.buffer
        end = buf.find(b"\r\n")
        if end < 0:
            return None
        if buf[:1] != b"*":
            # An inline command (hiredis sends none): passed on whole, never a renewal.
            self.buffer = buf[end + 2:]
            return buf[:end + 2], buf[:end].split()
        position, args = end + 2, []
        for _ in range(int(buf[1:end])):
            end = buf.find(b"\r\n", position)
            if end < 0:
                return None
            start = end + 2
            stop = start + int(buf[position + 1:end])
            if len(buf) < stop + 2:
                return None
            args.append(buf[start:stop])
            position = stop + 2
        self.buffer = buf[position:]
        return buf[:position], args


class RelayedConnection:
    """One connection of the node, and Redis's bytes held back on it."""

    def __init__(self, client: socket.socket, upstream: socket.socket):
        self.client = client
        self.upstream = upstream
        self.lock = threading.Lock()
        self.holding = False
        self.held = bytearray()

    def close(self):
        for sock in (self.client, self.upstream):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()


class RedisRelay:
    """Listens on a free loopback port (`.url` for the node's `--redis`) and relays each
    connection to Redis on `upstream_port`, on threads of its own."""

    def __init__(self, upstream_port: int, reply_delay: float = 0.0):
        """`reply_delay`: Redis's replies on each new connection are held this long after the
        node connects (a slow link at start-up), then passed on in order."""
        self.upstream_port = upstream_port
        self.reply_delay = reply_delay
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}"
        self.connections: list[RelayedConnection] = []
        self.lock = threading.Lock()
        self.armed = False
        self.on_hold = None
        # Set when a renewal went to Redis and its reply (and all after it) is being held.
        self.holding_renewal = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def hold_next_renewal(self, then=None):
        """From the next renewal on, Redis's replies on its connection are held. `then()` runs
        on the relay's thread before the renewal goes on to Redis (to freeze the node there, so
        that no timeout of the node's can run in between)."""
        with self.lock:
            self.holding_renewal.clear()
            self.on_hold = then
            self.armed = True

    def release(self):
        """Hands the node everything held, in order, and passes everything through again."""
        with self.lock:
            self.armed = False
            connections = list(self.connections)
        for connection in connections:
            self._pass_on(connection)

    @staticmethod
    def _pass_on(connection: RelayedConnection):
        with connection.lock:
            if connection.held:
                connection.client.sendall(bytes(connection.held))
            connection.held.clear()
            connection.holding = False

    def close(self):
        self.listener.close()
        with self.lock:
            connections, self.connections = self.connections, []
        for connection in connections:
            connection.close()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            for sock in (client, upstream):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            connection = RelayedConnection(client, upstream)
            if self.reply_delay:
                connection.holding = True
                # The delay is the fault injected (a slow link), not a stand-in for a condition.
                threading.Timer(self.reply_delay, self._pass_on, args=(connection,)).start()
            with self.lock:
                self.connections.append(connection)
            threading.Thread(target=self._commands, args=(connection,), daemon=True).start()
            threading.Thread(target=self._replies, args=(connection,), daemon=True).start()

    def _commands(self, connection: RelayedConnection):
        splitter = CommandSplitter()
        try:
            while data := connection.client.recv(65536):
                for raw, args in splitter.feed(data):
                    with self.lock:
                        hold = self.armed and is_renewal(args)
                        on_hold = self.on_hold if hold else None
                        if hold:
                            self.armed = False
                    if hold:
                        # Holding starts before the command leaves, so its reply cannot slip by.
                        with connection.lock:
                            connection.holding = True
                        if on_hold:
                            on_hold()
                    connection.upstream.sendall(raw)
                    if hold:
                        self.holding_renewal.set()
        except OSError:
            pass
        connection.close()

    def _replies(self, connection: RelayedConnection):
        try:
            while data := connection.upstream.recv(65536):
                with connection.lock:
                    if connection.holding:
                        connection.held += data
                    else:
                        connection.client.sendall(data)
        except OSError:
            pass
        connection.close()
