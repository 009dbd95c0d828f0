"""Issue 21's load, side by side: `scrollcast-load --replica` (every connection joins with
"inputs": true) against several server builds in turn, in one run (bench/where-the-time-goes.md
§9). For each: the drivers' input-to-frame p50/p99, missed frames, frames delivered, and the
server's CPU per delivered frame (bench/frame_cost.py, over the load's measuring window); the
1-minute load average at the window's start and end.

Usage: python3 -m bench.applied_bench LABEL=SERVER_BINARY [LABEL=SERVER_BINARY ...] [flags]
(`--help` lists them). A LABEL ending in "+now" runs its server with SCROLLCAST_WRITE_AT_ONCE=1.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

from . import RELEASE
from .frame_cost import us_per_frame
from .sampler import MeasuringWindow, cpu_seconds, load_average
from .server import Server, bench_parser


def run(args, label: str, binary: str, out: Path) -> dict:
    env = dict(os.environ, **({"SCROLLCAST_WRITE_AT_ONCE": "1"} if label.endswith("+now") else {}))
    server = Server(Path(binary), env=env)
    report = out / f"{label}.json"
    command = [str(args.load), "--url", server.ws_url, "--rooms", str(args.rooms), "--viewers", str(args.viewers),
               "--drivers", str(args.drivers), "--script", args.script, "--seed", "11",
               "--duration", f"{args.duration:g}", "--ramp", f"{args.ramp:g}", "--protocol", args.protocol,
               "--room-prefix", label.replace("+", "p"), "--json", str(report)] + (["--replica"] if args.replica else [])
    try:
        load = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        window = MeasuringWindow({"cpu": lambda: cpu_seconds(server.pid), "load": load_average}).follow(load.stderr)
        load.wait()
    finally:
        server.stop()
    r = json.loads(report.read_text())
    latency = r.get("latencyMs") or {}
    return {"label": label, "fps": r["framesPerSecond"], "missed": r["missedFrames"], "p50": latency.get("p50"),
            "p99": latency.get("p99"), "cpu_s": window.delta("cpu"),
            "us_per_frame": us_per_frame(window.delta("cpu"), round(r["framesPerSecond"] * window.seconds)),
            "replica": (r.get("replica") or {}).get("mismatches"),
            "load": f"{window.first('load')}→{window.last('load')}" if window.complete else "–"}


def main(argv=None):
    parser = bench_parser("applied_bench", __doc__, binaries=False)
    parser.add_argument("builds", nargs="+", metavar="LABEL=SERVER_BINARY")
    parser.add_argument("--load", type=Path, default=RELEASE / "scrollcast-load", help="the scrollcast-load binary")
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--viewers", type=int, default=99, help="viewers per room")
    parser.add_argument("--drivers", type=int, default=1, help="drivers per room")
    parser.add_argument("--duration", type=float, default=10)
    parser.add_argument("--ramp", type=float, default=5)
    parser.add_argument("--script", default="mixed")
    parser.add_argument("--protocol", default="v2")
    parser.add_argument("--rounds", type=int, default=1, help="each build once per round, builds alternating")
    parser.add_argument("--no-replica", dest="replica", action="store_false", help="without scrollcast-load --replica")
    args = parser.parse_args(argv)
    builds = [build.split("=", 1) for build in args.builds]
    out = Path(tempfile.mkdtemp(prefix="applied-bench-"))
    print("| round | build | frames/s | missed | p50 / p99 (ms) | server CPU (s) | µs CPU / frame | replica mismatches | load avg |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for round_ in range(args.rounds):
        for label, binary in builds:
            x = run(args, label, binary, out)
            per_frame = "–" if x["us_per_frame"] is None else f"{x['us_per_frame']:.1f}"
            print(f"| {round_ + 1} | {label} | {x['fps']:.0f} | {x['missed']} | {x['p50']} / {x['p99']} | {x['cpu_s']:.2f} "
                  f"| {per_frame} | {x['replica']} | {x['load']} |", flush=True)


if __name__ == "__main__":
    main()
