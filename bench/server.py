"""A server for a bench: the release `scrollcast` (or anything that announces itself the same way)
on a free loopback port, its output in a log file; and the command-line flags naming the binaries."""

from __future__ import annotations

import argparse
import re
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from . import RELEASE, ROOT


def log(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def bench_parser(module: str, doc: str | None, binaries: bool = True) -> argparse.ArgumentParser:
    """A bench's command line (`python3 -m bench.MODULE`, its docstring as help), with --server and
    --load, the binaries every load bench runs (release builds by default), unless `binaries` is
    false."""
    parser = argparse.ArgumentParser(prog=f"python3 -m bench.{module}", description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    if binaries:
        parser.add_argument("--server", type=Path, default=RELEASE / "scrollcast", help="the scrollcast binary")
        parser.add_argument("--load", type=Path, default=RELEASE / "scrollcast-load", help="the scrollcast-load binary")
    return parser


def require(*binaries: Path) -> None:
    """Stops the bench with a clear message when a binary it needs is not built."""
    for binary in binaries:
        if not Path(binary).exists():
            raise SystemExit(f"bench: {binary} is missing; build it first (`swift build -c release`, or `make bench`)")


class Server:
    """`binary` on a free port, its stderr and stdout in a log file. `data` is its `--data` (memory
    only unless a benchmark measures the store); `flags` are added (e.g. a cluster node's
    `--redis URL --node-id ID`); `command` runs another server that announces itself the same
    way (the peer broadcaster) instead."""

    def __init__(self, binary: Path, data="none", flags=(), command=None, env=None):
        self.log_file = tempfile.NamedTemporaryFile("w+", prefix="scrollcast-bench-", suffix=".log", delete=False)
        self.process = subprocess.Popen(
            command or [str(binary), "--host", "127.0.0.1", "--port", "0", "--public", str(ROOT / "Public"),
                        "--data", str(data), *flags],
            stdout=subprocess.PIPE, stderr=self.log_file, text=True, cwd=ROOT, env=env)
        first = self.process.stdout.readline()
        match = re.search(r"listening on http://([^:/\s]+):(\d+)", first)
        if not match:
            self.stop()
            raise SystemExit(f"bench: the server did not announce its port (first line: {first!r}); log: {self.log_file.name}")
        self.host, self.port = match.group(1), int(match.group(2))
        # Keep draining stdout so a chatty server never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.process.stdout:
            self.log_file.write(line)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.port}/ws"

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
