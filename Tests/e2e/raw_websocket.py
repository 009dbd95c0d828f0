"""A deliberately dumb WebSocket client over a plain socket, for the reliability tests.

Python `websockets` is too well behaved to test a server with: it answers pings, reads
everything, never sends invalid UTF-8 as text. This client does only what it is told, so a test
can play a viewer that stops reading, never pongs, or sends bytes no library would.
"""

from __future__ import annotations

import base64
import os
import socket
import struct
import time

SUBPROTOCOL = "scrollcast.v1"

TEXT, BINARY, CLOSE, PING, PONG = 0x1, 0x2, 0x8, 0x9, 0xA


def http_status(response: bytes) -> int:
    """The status code of an HTTP response head."""
    return int(response.split(b" ", 2)[1])


class RawWebSocket:
    """One connection; `status` and `head` hold the server's handshake answer."""

    def __init__(self, port: int, path: str = "/ws", protocol: str | None = SUBPROTOCOL,
                 origin: str | None = None, receive_buffer: int | None = None,
                 extra_headers: str = "", timeout: float = 10.0):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer is not None:
            # Before connect, so the window the server sees is small from the start.
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Upgrade: websocket",
                 "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
        if protocol is not None:
            lines.append(f"Sec-WebSocket-Protocol: {protocol}")
        if origin is not None:
            lines.append(f"Origin: {origin}")
        request = "\r\n".join(lines) + "\r\n" + extra_headers + "\r\n"
        self.sock.sendall(request.encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            self.buffer += chunk
        self.head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        self.status = http_status(self.head) if self.head else None

    @property
    def upgraded(self) -> bool:
        return self.status == 101

    def send_frame(self, opcode: int, payload: bytes, fin: bool = True):
        """Sends one masked frame (clients must mask)."""
        mask = os.urandom(4)
        head = bytes([(0x80 if fin else 0) | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack("!Q", n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def send_text(self, text: str | bytes):
        self.send_frame(TEXT, text.encode() if isinstance(text, str) else text)

    def _read_exact(self, n: int, deadline: float) -> bytes:
        while len(self.buffer) < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no frame before the deadline")
            self.sock.settimeout(remaining)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def read_frame(self, timeout: float = 10.0) -> tuple[int, bytes]:
        """The next frame from the server (unmasked): (opcode, payload)."""
        deadline = time.monotonic() + timeout
        b0, b1 = self._read_exact(2, deadline)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._read_exact(2, deadline))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._read_exact(8, deadline))[0]
        return b0 & 0x0F, self._read_exact(n, deadline)

    def read_until_close(self, timeout: float = 10.0) -> tuple[int | None, str, list[tuple[int, bytes]]]:
        """Reads frames until a close frame (→ its code and reason) or the socket ends (→ None)."""
        deadline = time.monotonic() + timeout
        frames = []
        while True:
            try:
                opcode, payload = self.read_frame(max(0.0, deadline - time.monotonic()))
            except ConnectionError:
                return None, "", frames
            frames.append((opcode, payload))
            if opcode == CLOSE:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                return code, payload[2:].decode(errors="replace"), frames

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def raw_http(port: int, request: bytes, timeout: float = 10.0) -> bytes:
    """Sends raw bytes, returns everything the server answers until it closes (or the timeout)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(request)
        data = b""
        try:
            while chunk := sock.recv(65536):
                data += chunk
        except (socket.timeout, ConnectionResetError):
            pass
    return data
