"""One `scrollcast-load` step against a server, with the server's CPU and memory sampled while the
load tool measures: the step the ladder, the peer comparison and the isolation bench share."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .sampler import MeasuringWindow, cpu_seconds, rss_kib
from .server import Server, log


def run_step(server: Server, viewers: int, *, load: Path, rooms: int, duration: float, ramp: float = 3,
             protocol: str = "v2", drivers: int = 1, script: str = "drag", threads: str | None = None,
             prefix: str = "ladder", extra: tuple[str, ...] = ()) -> dict:
    """`viewers` spread over `rooms` rooms, each with `drivers` drivers playing `script`; returns the
    load tool's JSON report with the server's CPU (% of one core) and the load tool's over the
    measured window, and the server's RSS at its end. `extra` are more flags of the load tool
    (e.g. `--stream inputs --replica`)."""
    per_room = max(1, viewers // rooms)
    json_path = Path(tempfile.mkstemp(prefix="scrollcast-load-", suffix=".json")[1])
    command = [
        str(load), "--url", server.ws_url, "--rooms", str(rooms),
        "--viewers", str(per_room), "--drivers", str(drivers), "--script", script,
        "--duration", str(duration), "--ramp", str(ramp), "--json", str(json_path),
        "--room-prefix", f"{prefix}{viewers}x{rooms}", "--protocol", protocol,
    ] + (["--threads", threads] if threads else []) + list(extra)
    log(f"step {viewers} viewers: {' '.join(command)}")
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    window = MeasuringWindow({"server": lambda: cpu_seconds(server.pid), "load": lambda: cpu_seconds(process.pid),
                              "rss": lambda: rss_kib(server.pid)})
    window.follow(process.stderr)
    stdout = process.stdout.read()
    process.wait(timeout=120)
    stderr = "".join(window.lines)
    sys.stderr.write(stdout)
    if process.returncode != 0:
        log(f"step {viewers}: scrollcast-load exited {process.returncode}: {stderr.strip().splitlines()[-1:]}")
    try:
        report = json.loads(json_path.read_text())
    except (OSError, ValueError) as error:
        raise SystemExit(f"bench: step {viewers}: no JSON report ({error}); stderr:\n{stderr}")
    finally:
        json_path.unlink(missing_ok=True)
    return {
        "viewers": report["viewers"],
        "connections": report["connections"],
        "report": report,
        "exit": process.returncode,
        "server_cpu_percent": 100 * window.rate("server"),
        "load_cpu_percent": 100 * window.rate("load"),
        "server_rss_kib": window.last("rss") if window.complete else rss_kib(server.pid),
        "seconds": time.monotonic() - started,
    }
