"""Shared fixtures for the end-to-end tests (Tests/e2e): a real scrollcast server.

The server is the binary in $SCROLLCAST_BIN (nothing is built here), started with `--port 0`;
its first stdout line, "scrollcast listening on http://HOST:PORT", gives the port.

Fixtures:
  scrollcast_server   one server for the whole session (share it; use a fresh room name per test)
  server_factory      start extra servers with their own flags (limits, shutdown tests); each is
                      stopped at the end of the test. Servers keep rooms in memory only
                      (`--data none`) unless started with `data=PATH` (a file in tmp_path)
  room_name           a room name no other test uses
"""

from __future__ import annotations

import uuid

import pytest

from server_helpers import RunningServer


@pytest.fixture(scope="session")
def scrollcast_server():
    server = RunningServer()
    yield server
    server.stop()


@pytest.fixture
def server_factory():
    started: list[RunningServer] = []

    def start(*flags: str, data=None) -> RunningServer:
        server = RunningServer(*flags, data=data)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def room_name() -> str:
    return "t-" + uuid.uuid4().hex[:12]
