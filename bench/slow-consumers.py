#!/usr/bin/env python3
"""Do viewers that stop reading slow the others down? (issue 7, "Slow consumers")

Runs `scrollcast-load` twice against one release server with the same rooms, viewers and gesture
script: once alone, once with STALLED extra viewers (raw sockets with a tiny receive window that
join the same rooms and then never read). Prints both runs, the server's RSS, and the ratios of
delivered frame rate and p99 input-to-frame latency; the last line is the headline
`slow_consumers_fps_ratio=N`. The target is that both stay within 10 % of the run without them.
"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "Tests" / "e2e"))
from raw_websocket import RawWebSocket  # noqa: E402  (the reliability tests' dumb client)

# The ladder's server wrapper and measurement helpers, so both benchmarks start the server alike.
_spec = importlib.util.spec_from_file_location("ladder", ROOT / "bench" / "run-ladder.py")
ladder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ladder)

VIEWERS = int(os.environ.get("SLOW_VIEWERS", "500"))
STALLED = int(os.environ.get("SLOW_STALLED", "100"))
ROOMS = int(os.environ.get("SLOW_ROOMS", "10"))
DURATION = float(os.environ.get("SLOW_DURATION", "15"))


def run_load(server, prefix):
    json_path = Path(tempfile.mkstemp(prefix="scrollcast-slow-", suffix=".json")[1])
    command = [str(ladder.LOAD), "--url", f"ws://{server.host}:{server.port}/ws", "--rooms", str(ROOMS),
               "--viewers", str(VIEWERS // ROOMS), "--drivers", "1", "--script", "drag",
               "--duration", str(DURATION), "--ramp", "3", "--json", str(json_path), "--room-prefix", prefix]
    ladder.log(" ".join(command))
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        ladder.log(f"scrollcast-load exited {done.returncode}: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(json_path.read_text())


def stall_viewers(server, prefix):
    """STALLED viewers spread over the rooms the next run uses; each joins, then never reads."""
    sockets = []
    for i in range(STALLED):
        ws = RawWebSocket(server.port, receive_buffer=4096)
        if not ws.upgraded:
            raise SystemExit(f"slow-consumers: stalled viewer {i} was refused ({ws.status})")
        ws.send_text(json.dumps({"type": "join", "room": f"{prefix}-{i % ROOMS}"}))
        sockets.append(ws)
    return sockets


def summary(name, result, rss):
    latency = result["latencyMs"]
    return (f"| {name} | {result['viewers']} | {result['framesPerSecond']:.0f} | {latency['p50']:.1f} | "
            f"{latency['p99']:.1f} | {result['missedFrames']} | {rss / 1024:.1f} |")


def main():
    for binary in (ladder.SERVER, ladder.LOAD):
        if not Path(binary).exists():
            raise SystemExit(f"slow-consumers: {binary} is missing; run `swift build -c release` first")
    server = ladder.Server()
    try:
        alone = run_load(server, "alone")
        rss_alone = ladder.rss_kib(server.pid)
        stalled = stall_viewers(server, "stalled")
        with_stalled = run_load(server, "stalled")
        rss_stalled = ladder.rss_kib(server.pid)
        for ws in stalled:
            ws.sock.close()
    finally:
        server.stop()
    fps_ratio = with_stalled["framesPerSecond"] / max(alone["framesPerSecond"], 1e-9)
    p99_ratio = with_stalled["latencyMs"]["p99"] / max(alone["latencyMs"]["p99"], 1e-9)
    print(f"\nSlow consumers: {VIEWERS} reading viewers in {ROOMS} rooms, with and without {STALLED} "
          f"viewers that join the same rooms and never read ({DURATION:.0f} s each, `make bench-slow`).\n")
    print("| run | reading viewers | frames/s delivered | p50 (ms) | p99 (ms) | missed | server RSS after (MiB) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(summary("alone", alone, rss_alone))
    print(summary(f"with {STALLED} stalled", with_stalled, rss_stalled))
    print(f"\nframes/s ratio {fps_ratio:.3f}, p99 ratio {p99_ratio:.3f} (target: within 10 %)")
    print(f"slow_consumers_fps_ratio={fps_ratio:.3f}")


if __name__ == "__main__":
    main()
