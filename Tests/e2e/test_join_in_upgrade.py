"""A join carried in the upgrade URL (docs/protocol.md, "Joining in the upgrade"), with raw clients
against the real server: the snapshot comes without a message sent, in both versions; the join is
checked and refused as a first `join` message would be; its limits are HTTP refusals."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from raw_websocket import RawWebSocket
from resume_helpers import Position
from server_helpers import Viewer, run


def refusal_body(socket: RawWebSocket) -> bytes:
    """The body of an HTTP refusal (the server closes after it)."""
    body = socket.buffer
    while chunk := socket.sock.recv(65536):
        body += chunk
    return body


def join_url(ws_url: str, join: dict | str) -> str:
    text = join if isinstance(join, str) else json.dumps(join)
    return f"{ws_url}?join={quote(text, safe='')}"


@pytest.mark.parametrize("protocol", ["v1", "v2"])
def test_the_snapshot_follows_the_upgrade_without_a_message(scrollcast_server, room_name, protocol):
    async def scenario():
        join = {"type": "join", "room": room_name, "client": "test-url/1", "resumable": True}
        viewer = await Viewer.open(join_url(scrollcast_server.ws_url, join), protocol)
        _, raw, snapshot = await viewer.wait_type("snapshot")
        await viewer.close()
        return viewer.types()[0], raw, snapshot

    first, raw, snapshot = run(scenario())
    assert first == "snapshot"
    assert isinstance(raw, str) == (protocol == "v1"), "the subprotocol decides the answers' wire"
    assert snapshot["room"] == room_name and snapshot["life"] >= 1


def test_a_url_join_is_refused_as_the_same_join_message_is(scrollcast_server, room_name):
    async def refusal(join: str, in_url: bool):
        if in_url:
            viewer = await Viewer.open(join_url(scrollcast_server.ws_url, join))
        else:
            viewer = await Viewer.open(scrollcast_server.ws_url)
            await viewer.ws.send(join)
        _, _, error = await viewer.wait_type("error")
        code, reason = await viewer.wait_closed()
        return error["message"], code, reason

    async def scenario():
        results = []
        for join in ('{"type": "join"}', "not json", "",
                     json.dumps({"type": "join", "room": room_name, "scene": "no-such-scene"}),
                     json.dumps({"type": "join", "room": room_name, "resume": {"life": 1}})):
            by_url, by_message = await refusal(join, True), await refusal(join, False)
            results.append((join, by_url, by_message))
        return results

    for join, by_url, by_message in run(scenario()):
        assert by_url == by_message, join
        assert by_url[1] == 1008, join


def test_a_join_message_after_a_url_join_is_a_second_join(scrollcast_server, room_name):
    async def scenario():
        join = {"type": "join", "room": room_name}
        viewer = await Viewer.open(join_url(scrollcast_server.ws_url, join))
        await viewer.wait_type("snapshot")
        await viewer.send(join)
        _, _, error = await viewer.wait_type("error")
        return error["message"], await viewer.wait_closed()

    message, (code, _) = run(scenario())
    assert message == f"already joined room '{room_name}'; one join per connection"
    assert code == 1008


def test_an_oversized_a_doubled_and_a_non_utf8_url_join_are_refused(scrollcast_server, room_name):
    port = scrollcast_server.port
    join = {"type": "join", "room": room_name, "client": "x" * 4000}
    at_limit = json.dumps({**join, "client": "x" * (4096 - len(json.dumps({**join, "client": ""})))})
    assert len(at_limit) == 4096
    over = at_limit.replace('"x', '"xx', 1)
    socket = RawWebSocket(port, path=f"/ws?join={quote(over, safe='')}")
    assert socket.status == 414
    assert refusal_body(socket) == b"'join' in the URL is 4097 bytes; the limit is 4096\n"
    socket.close()
    # At the limit the join itself is read (and refused for its over-long `client`, as a message).
    socket = RawWebSocket(port, path=f"/ws?join={quote(at_limit, safe='')}")
    assert socket.upgraded
    code, reason, _ = socket.read_until_close()
    assert code == 1008
    socket.close()
    twice = quote(json.dumps({"type": "join", "room": room_name}), safe="")
    socket = RawWebSocket(port, path=f"/ws?join={twice}&join={twice}")
    assert socket.status == 400
    assert refusal_body(socket) == b"more than one 'join' in the URL\n"
    socket.close()
    socket = RawWebSocket(port, path="/ws?join=%7B%22type%22%3A%22join%22%2C%22room%22%3A%22%FF%22%7D")
    assert socket.upgraded
    code, reason, frames = socket.read_until_close()
    assert (code, reason) == (1007, "invalid UTF-8 in the message in the URL")
    assert not [payload for opcode, payload in frames if opcode != 0x8], "nothing but the close"
    socket.close()


@pytest.mark.parametrize("protocol", ["v1", "v2"])
def test_a_resume_in_the_url_is_answered_with_resumed(scrollcast_server, room_name, protocol):
    async def scenario():
        first = await Viewer.open(join_url(scrollcast_server.ws_url, {"type": "join", "room": room_name, "resumable": True}),
                                  protocol)
        await first.wait_type("snapshot")
        position = Position().follow(first)
        decoder = first.decoder
        await first.close()
        resume = {"type": "join", "room": room_name, "resume": position.resume()}
        back = await Viewer.open(join_url(scrollcast_server.ws_url, resume), protocol, decoder=decoder)
        _, _, resumed = await back.wait_type("resumed")
        await back.close()
        return back.types()[0], resumed, position

    first, resumed, position = run(scenario())
    assert first == "resumed"
    assert resumed["life"] == position.life and resumed["from"] == position.seq
