"""A real redis-server for the cluster tests (issue 15), on a free loopback port of its own.

Never the system's service on 6379: each RedisServer runs `redis-server` as a child process with
a fresh temporary directory, no RDB snapshots and an append-only file, so `restart()` brings back
exactly what was written before a stop or a SIGKILL.

Fixture:
  redis_server   one RedisServer for the test, stopped and its directory removed afterwards
"""

from __future__ import annotations

import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

REDIS_SERVER = "redis-server"
REDIS_CLI = "redis-cli"
START_SECONDS = 10.0


def free_port() -> int:
    """A loopback port nothing listened on a moment ago (the kernel's pick for port 0)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def ping(port: int) -> bool:
    """Whether something on `port` answers a Redis PING with PONG."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
            conn.sendall(b"*1\r\n$4\r\nPING\r\n")
            return conn.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """A redis-server child process: `.port`, `.url`, and `kill()`, `stop()`, `restart()` to take
    it down and bring it back on the same port with the same data."""

    def __init__(self, port: int | None = None):
        """On a free port, or on `port` (which a test chose before, e.g. for a node that is to
        find its Redis missing first)."""
        self.dir = Path(tempfile.mkdtemp(prefix="scrollcast-redis-"))
        self.log = self.dir / "redis.log"
        self.proc: subprocess.Popen | None = None
        self.port = 0
        if port is not None:
            if self._start(port):
                return
            raise RuntimeError(f"redis-server did not start on port {port}: {self._log_tail()}")
        # Another process may take the picked port before redis binds it: pick again then.
        for _ in range(5):
            if self._start(free_port()):
                return
        raise RuntimeError(f"redis-server did not start: {self._log_tail()}")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def _start(self, port: int) -> bool:
        """Runs redis-server on `port` and waits until it answers; False if it exited first
        (the port was busy, most likely)."""
        self.port = port
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(self.dir),
                 "--save", "", "--appendonly", "yes", "--daemonize", "no"],
                stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            if ping(port) and self._answering_is_ours():
                return True
            time.sleep(0.02)  # polling interval of the condition above
        self._signal(signal.SIGKILL)
        raise RuntimeError(f"redis-server on port {port} did not answer within {START_SECONDS} s: {self._log_tail()}")

    def _answering_is_ours(self) -> bool:
        """A PONG could come from another process holding the port: INFO names the pid."""
        try:
            info = self.command("info", "server")
        except RuntimeError:
            return False
        return re.search(rf"^process_id:{self.proc.pid}\s*$", info, re.M) is not None

    def _log_tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def _signal(self, sig: int):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        """SIGKILL, then wait: a crash (what was written to the append-only file survives)."""
        self._signal(signal.SIGKILL)

    def stop(self):
        """SIGTERM, then wait: redis shuts down cleanly."""
        self._signal(signal.SIGTERM)

    def restart(self):
        """Starts it again on the same port with the same directory (so the append-only file
        brings the data back), stopping it first if it still runs. The port may still be held
        for a moment after the old process died, so binding is retried until a deadline."""
        self.stop()
        deadline = time.monotonic() + START_SECONDS
        while not self._start(self.port):
            if time.monotonic() > deadline:
                raise RuntimeError(f"redis-server could not get port {self.port} back: {self._log_tail()}")
            time.sleep(0.05)  # the port is being released; polled again above

    def command(self, *args: str) -> str:
        """Runs one command with redis-cli and returns its output (--raw), stripped. Raises
        RuntimeError if redis-cli fails (e.g. nothing listens on the port) or gets no answer."""
        try:
            done = subprocess.run([REDIS_CLI, "-p", str(self.port), "--raw", *map(str, args)],
                                  capture_output=True, text=True, timeout=10)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"redis-cli {' '.join(map(str, args))} failed: no answer within 10 s") from None
        if done.returncode != 0:
            raise RuntimeError(f"redis-cli {' '.join(map(str, args))} failed: {done.stderr.strip() or done.stdout.strip()}")
        return done.stdout.strip()

    def close(self):
        """Stops it and removes its directory."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def redis_server():
    server = RedisServer()
    yield server
    server.close()
