#!/usr/bin/env python3
"""Do viewers that stop reading slow the others down? (issue 7, "Slow consumers")

Runs `scrollcast-load` twice against one release server with the same rooms, viewers and gesture
script: once alone, once with --stalled extra viewers (raw sockets with a tiny receive window that
join the same rooms and then never read). Prints both runs, the server's RSS, and the ratios of
delivered frame rate and p99 input-to-frame latency; the last line is the headline
`slow_consumers_fps_ratio=N`. The target is that both stay within 10 % of the run without them.
`python3 -m bench.slow_consumers --help` lists its flags (--viewers, --stalled, --rooms, --duration).
"""

import json
import subprocess
import tempfile
from pathlib import Path

from raw_websocket import RawWebSocket  # the reliability tests' dumb client (Tests/e2e)

from .sampler import rss_kib
from .server import Server, bench_parser, log, require


def run_load(args, server, prefix):
    json_path = Path(tempfile.mkstemp(prefix="scrollcast-slow-", suffix=".json")[1])
    command = [str(args.load), "--url", server.ws_url, "--rooms", str(args.rooms),
               "--viewers", str(args.viewers // args.rooms), "--drivers", "1", "--script", "drag",
               "--duration", str(args.duration), "--ramp", "3", "--json", str(json_path), "--room-prefix", prefix]
    log(" ".join(command))
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        log(f"scrollcast-load exited {done.returncode}: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(json_path.read_text())


def stall_viewers(args, server, prefix):
    """--stalled viewers spread over the rooms the next run uses; each joins, then never reads."""
    sockets = []
    for i in range(args.stalled):
        ws = RawWebSocket(server.port, receive_buffer=4096)
        if not ws.upgraded:
            raise SystemExit(f"slow-consumers: stalled viewer {i} was refused ({ws.status})")
        ws.send_text(json.dumps({"type": "join", "room": f"{prefix}-{i % args.rooms}"}))
        sockets.append(ws)
    return sockets


def summary(name, result, rss):
    latency = result["latencyMs"]
    return (f"| {name} | {result['viewers']} | {result['framesPerSecond']:.0f} | {latency['p50']:.1f} | "
            f"{latency['p99']:.1f} | {result['missedFrames']} | {rss / 1024:.1f} |")


def main(argv=None):
    parser = bench_parser("slow_consumers", __doc__)
    parser.add_argument("--viewers", type=int, default=500, help="reading viewers in all")
    parser.add_argument("--stalled", type=int, default=100, help="viewers that join and never read")
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--duration", type=float, default=15, help="seconds measured per run")
    args = parser.parse_args(argv)
    require(args.server, args.load)
    server = Server(args.server)
    try:
        alone = run_load(args, server, "alone")
        rss_alone = rss_kib(server.pid)
        stalled = stall_viewers(args, server, "stalled")
        with_stalled = run_load(args, server, "stalled")
        rss_stalled = rss_kib(server.pid)
        for ws in stalled:
            ws.sock.close()
    finally:
        server.stop()
    fps_ratio = with_stalled["framesPerSecond"] / max(alone["framesPerSecond"], 1e-9)
    p99_ratio = with_stalled["latencyMs"]["p99"] / max(alone["latencyMs"]["p99"], 1e-9)
    print(f"\nSlow consumers: {args.viewers} reading viewers in {args.rooms} rooms, with and without {args.stalled} "
          f"viewers that join the same rooms and never read ({args.duration:.0f} s each, `make bench-slow`).\n")
    print("| run | reading viewers | frames/s delivered | p50 (ms) | p99 (ms) | missed | server RSS after (MiB) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(summary("alone", alone, rss_alone))
    print(summary(f"with {args.stalled} stalled", with_stalled, rss_stalled))
    print(f"\nframes/s ratio {fps_ratio:.3f}, p99 ratio {p99_ratio:.3f} (target: within 10 %)")
    print(f"slow_consumers_fps_ratio={fps_ratio:.3f}")


if __name__ == "__main__":
    main()
