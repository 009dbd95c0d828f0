"""docs/protocol.md, "Connecting": an upgrade the server refuses gets an HTTP/1.1 status with a
plain-text reason, which raw sockets and Python `websockets` alike can read; a request head over
8 KiB gets 431 rather than silence."""

from __future__ import annotations

import socket
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from raw_websocket import RawWebSocket, http_status, raw_http
from server_helpers import run

LIMIT = 8192  # the documented limit on a request's line and headers
REFUSALS = [  # (what the client does, status, reason phrase, body)
    (dict(protocol="chat"), 400, "Bad Request", "one of the subprotocols scrollcast.v2, scrollcast.v1 required\n"),
    (dict(origin="http://evil.example"), 403, "Forbidden", "origin http://evil.example is not allowed\n"),
    (dict(path="/socket"), 404, "Not Found", "no WebSocket endpoint at this path\n"),
    (dict(extra_headers="X-Big: " + "a" * 20_000 + "\r\n"), 431, "Request Header Fields Too Large", None),
    (dict(extra_headers="".join(f"X-H{i}: v\r\n" for i in range(2_000))), 431, "Request Header Fields Too Large", None),
]
IDS = ["no scrollcast version", "foreign origin", "wrong path", "one 20 KB header", "2,000 small headers"]


@pytest.mark.parametrize("request_args, status, phrase, body", REFUSALS, ids=IDS)
def test_a_refused_upgrade_gets_an_http_1_1_status_and_a_plain_text_reason(scrollcast_server, request_args, status,
                                                                          phrase, body):
    raw = RawWebSocket(scrollcast_server.port, **request_args)
    rest = raw.buffer
    while True:  # the server closes after the reason ("connection: close")
        chunk = raw.sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    raw.close()
    lines = raw.head.decode().split("\r\n")
    assert lines[0] == f"HTTP/1.1 {status} {phrase}", raw.head
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    assert headers["content-type"] == "text/plain; charset=utf-8"
    assert headers["connection"] == "close"
    assert int(headers["content-length"]) == len(rest)
    if body is not None:
        assert rest.decode() == body
    else:
        assert rest.decode().endswith(f"bytes; the limit is {LIMIT}\n"), rest


@pytest.mark.parametrize("connect_args, status", [
    (dict(subprotocols=["chat"]), 400),
    (dict(subprotocols=["scrollcast.v1"], origin="http://evil.example"), 403),
    (dict(subprotocols=["scrollcast.v1"], additional_headers={"X-Big": "a" * 20_000}), 431),
], ids=["no scrollcast version", "foreign origin", "20 KB of headers"])
def test_python_websockets_reads_the_refusal_status(scrollcast_server, connect_args, status):
    async def attempt():
        async with connect(scrollcast_server.ws_url, open_timeout=10, **connect_args):
            pass

    with pytest.raises(InvalidStatus) as refused:  # not "did not receive a valid HTTP response"
        run(attempt())
    assert refused.value.response.status_code == status


def test_plain_requests_over_the_limit_get_431_and_within_it_are_served_also_on_one_keep_alive_connection(
        scrollcast_server):
    port = scrollcast_server.port
    over = raw_http(port, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: " + b"a" * 20_000 + b"\r\n\r\n")
    assert over.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"), over[:80]
    at_limit = raw_http(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Pad: "
                        + b"a" * (LIMIT - 100) + b"\r\n\r\n")
    assert http_status(at_limit) == 200
    # The limit is per request: twenty 1 KB requests on one connection are all served.
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        for _ in range(20):
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"b" * 1000 + b"\r\n\r\n")
            response = b""
            while not response.endswith(b"ok\n"):
                chunk = sock.recv(65536)
                assert chunk, response
                response += chunk
            assert http_status(response) == 200
    with urllib.request.urlopen(scrollcast_server.base_url + "/healthz", timeout=10) as reply:
        assert reply.read() == b"ok\n"
