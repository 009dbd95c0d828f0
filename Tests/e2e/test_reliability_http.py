"""Hostile HTTP and handshakes: refused with a status, nothing outside Public/, the server unharmed."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import time
import urllib.request

import pytest

from conftest import RunningServer
from raw_websocket import RawWebSocket, http_status, raw_http
from server_helpers import PUBLIC, Viewer, run, without_versions


def healthz(server) -> bytes:
    with urllib.request.urlopen(server.base_url + "/healthz", timeout=10) as response:
        return response.read()


@pytest.mark.parametrize("protocol", [None, "chat", "scrollcast.v3", ""], ids=["none", "chat", "v3", "empty"])
def test_upgrade_without_a_scrollcast_version_is_refused_with_400(scrollcast_server, protocol):
    raw = RawWebSocket(scrollcast_server.port, protocol=protocol)
    raw.close()
    assert raw.status == 400, raw.head
    assert b"Upgrade" not in raw.head.split(b"\r\n", 1)[1] or raw.status != 101


def test_upgrade_offering_v1_among_others_is_accepted(scrollcast_server):
    raw = RawWebSocket(scrollcast_server.port, protocol="chat, scrollcast.v1")
    raw.close()
    assert raw.status == 101
    assert b"sec-websocket-protocol: scrollcast.v1" in raw.head.lower()


@pytest.mark.parametrize("offer, chosen", [("scrollcast.v2", "scrollcast.v2"), ("chat, scrollcast.v2", "scrollcast.v2"),
                                           ("scrollcast.v2, scrollcast.v1", "scrollcast.v2"),
                                           ("scrollcast.v1, scrollcast.v2", "scrollcast.v1")])
def test_the_first_version_the_client_offers_is_chosen(scrollcast_server, offer, chosen):
    raw = RawWebSocket(scrollcast_server.port, protocol=offer)
    raw.close()
    assert raw.status == 101
    assert f"sec-websocket-protocol: {chosen}".encode() in raw.head.lower()


def test_upgrade_on_another_path_is_refused(scrollcast_server):
    raw = RawWebSocket(scrollcast_server.port, path="/echo")
    raw.close()
    assert raw.status == 404


def test_foreign_origin_is_refused_with_403_and_logged(scrollcast_server):
    raw = RawWebSocket(scrollcast_server.port, origin="http://evil.example")
    raw.close()
    assert raw.status == 403, raw.head
    deadline = time.monotonic() + 10
    while not any("evil.example" in line and "origin" in line for line in scrollcast_server.stderr_lines):
        assert time.monotonic() < deadline, "the refusal was not logged"
        time.sleep(0.05)  # polling the log the server writes, with a deadline


@pytest.mark.parametrize("origin", [None, "same"], ids=["no Origin (not a browser)", "the server's own origin"])
def test_own_origin_and_no_origin_are_accepted(scrollcast_server, origin):
    raw = RawWebSocket(scrollcast_server.port, origin=scrollcast_server.base_url if origin else None)
    raw.close()
    assert raw.status == 101, raw.head


def test_localhost_spelling_of_own_origin_is_accepted(scrollcast_server):
    raw = RawWebSocket(scrollcast_server.port, origin=f"http://localhost:{scrollcast_server.port}")
    raw.close()
    assert raw.status == 101


@pytest.mark.parametrize("origin", ["http://127.0.0.1:1", "https://127.0.0.1:{port}", "null",
                                    "http://127.0.0.1.evil.example:{port}", "http://evil.example/?http://127.0.0.1:{port}"])
def test_lookalike_origins_are_refused(scrollcast_server, origin):
    raw = RawWebSocket(scrollcast_server.port, origin=origin.format(port=scrollcast_server.port))
    raw.close()
    assert raw.status == 403, (origin, raw.head)


def test_allowed_origins_flag_replaces_the_default(server_factory):
    server = server_factory("--allowed-origins", "http://app.example, http://other.example:8080")
    for origin, status in [("http://app.example", 101), ("http://other.example:8080", 101),
                           (server.base_url, 403), ("http://evil.example", 403), (None, 101)]:
        raw = RawWebSocket(server.port, origin=origin)
        raw.close()
        assert raw.status == status, (origin, raw.head)


@pytest.fixture
def public_with_traps(tmp_path):
    """A copy of Public/ with symlinks pointing out of it, and a secret file beside it."""
    public = tmp_path / "public"
    shutil.copytree(PUBLIC, public)
    (tmp_path / "secret.txt").write_text("TOP-SECRET\n")
    os.symlink(tmp_path / "secret.txt", public / "leak.txt")
    os.symlink(tmp_path, public / "up")
    os.symlink("/etc", public / "etc")
    os.symlink(public / "index.html", public / "alias.html")  # inside: fine to serve
    server = RunningServer(public=public)
    yield server
    server.stop()


TRAVERSALS = ["/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/..%2fsecret.txt", "/js/../../secret.txt",
              "/js/%2e%2e/%2e%2e/secret.txt", "/%2e%2e%2f%2e%2e%2fsecret.txt", "//secret.txt", "/.%2e/secret.txt",
              "/leak.txt", "/up/secret.txt", "/etc/passwd", "//etc/passwd",
              "/../../../../etc/passwd", "/%2f%2fetc/passwd", "/..\\secret.txt", "/%00/../secret.txt",
              "/index.html%00.png"]


def test_nothing_outside_public_is_served(public_with_traps):
    server = public_with_traps
    for path in TRAVERSALS:
        response = raw_http(server.port, f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        assert b"TOP-SECRET" not in response and b"root:" not in response, path
        # Refused, or (for "%00", where lws ends the path at the NUL: "/") the page itself.
        if not response:
            continue  # dropped without an answer
        status = http_status(response)
        assert status in (400, 403, 404) or without_versions(response).endswith((PUBLIC / "index.html").read_bytes()), (path, response[:60])
    # A symlink that stays inside Public/ is an ordinary file.
    alias = raw_http(server.port, b"GET /alias.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert http_status(alias) == 200 and (PUBLIC / "index.html").read_bytes() in without_versions(alias)
    assert healthz(server) == b"ok\n"


def test_oversized_request_headers_are_refused_and_the_server_keeps_serving(scrollcast_server):
    response = raw_http(scrollcast_server.port, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n")
    assert http_status(response) == 431  # over the 8 KiB limit (docs/protocol.md, "Connecting")
    many = b"".join(b"X-H%d: v\r\n" % i for i in range(1000))
    response = raw_http(scrollcast_server.port, b"GET / HTTP/1.1\r\nHost: x\r\n" + many + b"\r\n")
    assert http_status(response) == 431
    # Past libwebsockets' own 64 KiB header buffer the connection is still dropped unanswered.
    response = raw_http(scrollcast_server.port, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n")
    assert response == b""
    assert healthz(scrollcast_server) == b"ok\n"


@pytest.mark.parametrize("garbage", [bytes(range(256)) * 8, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + os.urandom(500),
                                     b"\r\n" * 1000, b"GET\x00/ HTTP/1.1\r\n\r\n", os.urandom(4096)],
                         ids=["all bytes", "TLS hello", "blank lines", "NUL in request line", "random"])
def test_garbage_bytes_on_the_socket_do_not_harm_the_server(scrollcast_server, room_name, garbage):
    async def scenario():
        watcher = await Viewer.join(scrollcast_server.ws_url, room_name)
        await watcher.wait_type("snapshot")
        response = await asyncio.to_thread(raw_http, scrollcast_server.port, garbage, 15)
        assert response == b"" or http_status(response) >= 400
        assert healthz(scrollcast_server) == b"ok\n"
        wheel = await watcher.input("wheel", 1000, dx=0, dy=100, mode="pixel")
        await watcher.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == wheel)
        await watcher.close()
    run(scenario())


@pytest.mark.parametrize("frame,codes", [
    # libwebsockets 4.1.6 accepts an unmasked client frame; its payload ("hello") is then judged
    # as a message and refused as not JSON.
    (bytes([0x81, 0x05]) + b"hello", (1008,)),
    (bytes([0x83, 0x80, 1, 2, 3, 4]), (1002, None)),           # reserved opcode 3
    (bytes([0xC1, 0x80, 1, 2, 3, 4]), (1002, None)),           # RSV1 without an extension
    (bytes([0x09, 0x80, 1, 2, 3, 4]), (1002, None)),           # fragmented ping
    (bytes([0x80, 0x80, 1, 2, 3, 4]), (1002, None)),           # continuation with nothing to continue
], ids=["unmasked", "reserved opcode", "rsv1", "fragmented control", "stray continuation"])
def test_websocket_protocol_violations_are_closed(scrollcast_server, room_name, frame, codes):
    async def scenario():
        watcher = await Viewer.join(scrollcast_server.ws_url, room_name)
        await watcher.wait_type("snapshot")
        raw = RawWebSocket(scrollcast_server.port)
        assert raw.upgraded
        raw.sock.sendall(frame)
        code, _, _ = await asyncio.to_thread(raw.read_until_close)
        raw.close()
        assert code in codes, code  # None: lws dropped the socket without a close frame
        wheel = await watcher.input("wheel", 1000, dx=0, dy=100, mode="pixel")
        await watcher.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == wheel)
        await watcher.close()
    run(scenario())


def test_slowloris_requests_are_dropped_and_do_not_stop_healthz(scrollcast_server):
    sockets = []
    try:
        for i in range(200):
            sock = socket.create_connection(("127.0.0.1", scrollcast_server.port), timeout=10)
            # Half a request, never finished; every other one sends nothing at all.
            if i % 2 == 0:
                sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            sockets.append(sock)
        assert healthz(scrollcast_server) == b"ok\n"
        raw = RawWebSocket(scrollcast_server.port)
        raw.close()
        assert raw.status == 101, "new WebSockets are still accepted"
        # Every one of them is dropped by the server's request timeout (10 s), within a deadline.
        deadline = time.monotonic() + 40
        for sock in sockets:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                assert sock.recv(100) == b""
            except ConnectionResetError:
                pass
        assert healthz(scrollcast_server) == b"ok\n"
    finally:
        for sock in sockets:
            sock.close()
