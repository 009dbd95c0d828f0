"""A real TCP proxy that writes down the HTTP requests passing through it (method and target),
so a test can see what a browser asked the server for, and what it took from its own cache.

Bytes go through unchanged in both directions, one thread per direction. Requests are read from
the client's bytes: each starts a line `METHOD TARGET HTTP/1.1` at the start of the connection or
after the blank line that ends the previous request's head (the browser's requests here have no
body). After a WebSocket upgrade the connection's bytes are frames, and nothing more is read.
"""

from __future__ import annotations

import re
import socket
import threading

REQUEST = re.compile(rb"(?:^|\r\n\r\n)([A-Z]+) (\S+) HTTP/1\.1\r\n")


class HTTPRequestLog:
    """Listens on a free loopback port in front of 127.0.0.1:`upstream_port`. `on_request(method,
    target)`, if given, runs for each request before its bytes go on (in the proxy's thread), so a
    test can change what the server will answer it."""

    def __init__(self, upstream_port: int, on_request=None):
        self.upstream_port = upstream_port
        self.on_request = on_request
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self._requests: list[tuple[str, str]] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def requests(self) -> list[tuple[str, str]]:
        """(method, target) of every request so far, in the order they were read."""
        with self.lock:
            return list(self._requests)

    def clear(self) -> None:
        with self.lock:
            self._requests.clear()

    def close(self) -> None:
        self._closed = True
        self.listener.close()

    def _accept(self):
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:   # the server is gone (the test is ending): the client sees its connection close
                client.close()
                continue
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, destination: socket.socket, from_client: bool):
        head = b""          # the client's bytes so far, until the connection is upgraded
        reading = from_client
        try:
            while chunk := source.recv(65536):
                if reading:
                    head += chunk
                    self._read_requests(head, len(head) - len(chunk))
                    if b"\r\nupgrade: websocket" in head.lower():
                        reading = False
                destination.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (source, destination):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def _read_requests(self, head: bytes, new_from: int):
        # A request line may straddle two reads: it counts once, with the read that completes it.
        for match in REQUEST.finditer(head):
            if match.end() > new_from:
                method, target = match.group(1).decode(), match.group(2).decode()
                with self.lock:
                    self._requests.append((method, target))
                if self.on_request:
                    self.on_request(method, target)
