"""The link emulator for tests: the real `scrollcast-link` proxy (next to $SCROLLCAST_BIN) between
a client and a server, so a test sees what a real network does (docs/links.md).

    proxy = LinkProxy.start(server.port, profile="4g", seed=7)
    viewer = await Viewer.join(proxy.ws_url(), room)   # through 40 ms + 0–20 ms each way
    proxy.cut()                                        # every open connection reset at once
    proxy.stats()["timingErrorUs"]["p99"]              # the emulator's own lateness
    proxy.stop()

A page loaded through the proxy sends `Origin: http://127.0.0.1:PROXYPORT`, which the server refuses
(403) unless started with `--allowed-origins` naming it (or `*`): start it with
`server_factory("--allowed-origins", "*")` for browser tests through the link.

Overrides are keyword arguments named like the flags: delay_ms, jitter_ms, stall_probability,
stall_ms, rate_mbit (0 removes the cap). The `link_proxy` fixture in conftest.py stops every proxy
it started at the end of the test.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import urllib.request
from pathlib import Path

from server_helpers import stop_process

PROFILES = ("loopback", "lan", "broadband", "4g", "bad-wifi")
OVERRIDES = ("delay_ms", "jitter_ms", "stall_probability", "stall_ms", "rate_mbit")
LISTENING = re.compile(r"^scrollcast-link listening on (\S+):(\d+) control (\S+):(\d+) profile (\S+)\s*$")


def link_binary() -> str:
    """`scrollcast-link` in the same build directory as $SCROLLCAST_BIN."""
    server = os.environ.get("SCROLLCAST_BIN")
    if not server:
        raise RuntimeError("SCROLLCAST_BIN is not set (e.g. SCROLLCAST_BIN=.build/debug/scrollcast)")
    binary = Path(server).resolve().parent / "scrollcast-link"
    if not binary.exists():
        raise RuntimeError(f"{binary} is missing: build it (swift build --product scrollcast-link)")
    return str(binary)


class LinkProxy:
    """A running `scrollcast-link` process: where clients connect (`port`), its control endpoint,
    and the profile it emulates (its name, with "+custom" when overridden)."""

    def __init__(self, proc: subprocess.Popen, port: int, control_port: int, profile: str):
        self.proc = proc
        self.port = port
        self.control_port = control_port
        self.profile = profile
        self.output: list[str] = []
        # Drain both pipes so the proxy never blocks on a full pipe.
        for stream in (proc.stdout, proc.stderr):
            threading.Thread(target=self._drain, args=(stream,), daemon=True).start()

    @classmethod
    def start(cls, upstream_port: int, profile: str = "4g", seed: int | None = None, **overrides) -> "LinkProxy":
        """Starts the proxy on a free loopback port in front of 127.0.0.1:upstream_port."""
        unknown = set(overrides) - set(OVERRIDES)
        if unknown:
            raise TypeError(f"unknown overrides {sorted(unknown)}; use {OVERRIDES}")
        cmd = [link_binary(), "--upstream", f"127.0.0.1:{upstream_port}", "--listen", "127.0.0.1:0", "--profile", profile]
        if seed is not None:
            cmd += ["--seed", str(seed)]
        for name, value in overrides.items():
            cmd += ["--" + name.replace("_", "-"), str(value)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        first = proc.stdout.readline()  # blocks until the proxy prints it (or dies: "")
        match = LISTENING.match(first)
        if not match:
            proc.kill()
            _, err = proc.communicate(timeout=10)
            raise RuntimeError(f"scrollcast-link did not start: {first!r} {err}")
        return cls(proc, int(match.group(2)), int(match.group(4)), match.group(5))

    def _drain(self, stream):
        for line in stream:
            self.output.append(line)

    def http_url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def _control(self, method: str, path: str) -> dict:
        request = urllib.request.Request(f"http://127.0.0.1:{self.control_port}{path}", method=method)
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def cut(self) -> int:
        """Cuts every open connection now (both ends see a reset); returns how many."""
        return self._control("POST", "/cut")["cut"]

    def stats(self) -> dict:
        """Counters and the emulator's own timing error (keys: docs/links.md)."""
        return self._control("GET", "/stats")

    def stop(self) -> None:
        stop_process(self.proc)
