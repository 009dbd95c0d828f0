"""Shared fixtures for the end-to-end tests (Tests/e2e): a real scrollcast server.

The server is the binary in $SCROLLCAST_BIN (nothing is built here), started with `--port 0`;
its first stdout line, "scrollcast listening on http://HOST:PORT", gives the port.

Fixtures:
  scrollcast_server   one server for the whole session (share it; use a fresh room name per test)
  server_factory      start extra servers with their own flags (limits, shutdown tests); each is
                      stopped at the end of the test
  room_name           a room name no other test uses
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import uuid
from pathlib import Path

import pytest

from server_helpers import PUBLIC
LISTENING = re.compile(r"^scrollcast listening on (http://\S+?):(\d+)\s*$")


class RunningServer:
    """A scrollcast child process and where it listens."""

    def __init__(self, *flags: str, public: Path = PUBLIC):
        binary = os.environ.get("SCROLLCAST_BIN")
        if not binary:
            pytest.fail("SCROLLCAST_BIN is not set (e.g. SCROLLCAST_BIN=.build/debug/scrollcast)")
        cmd = [binary, "--host", "127.0.0.1", "--port", "0", "--public", str(public), *flags]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.stderr_lines: list[str] = []
        first = self.proc.stdout.readline()  # blocks until the server prints it (or dies: "")
        match = LISTENING.match(first)
        if not match:
            self.proc.kill()
            _, err = self.proc.communicate(timeout=10)
            raise RuntimeError(f"scrollcast did not start: {first!r} {err}")
        self.base_url = f"{match.group(1)}:{match.group(2)}"
        self.port = int(match.group(2))
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"
        # Drain both pipes so a chatty server never blocks on a full pipe.
        threading.Thread(target=self._drain, args=(self.proc.stdout, None), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.proc.stderr, self.stderr_lines), daemon=True).start()

    @staticmethod
    def _drain(stream, sink):
        for line in stream:
            if sink is not None:
                sink.append(line)

    def stop(self) -> int:
        """SIGTERM, then wait; returns the exit status."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        return self.proc.returncode


@pytest.fixture(scope="session")
def scrollcast_server():
    server = RunningServer()
    yield server
    server.stop()


@pytest.fixture
def server_factory():
    started: list[RunningServer] = []

    def start(*flags: str) -> RunningServer:
        server = RunningServer(*flags)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def room_name() -> str:
    return "t-" + uuid.uuid4().hex[:12]
