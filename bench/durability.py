#!/usr/bin/env python3
"""What does durability cost? (durable rooms issue, `make bench-durability`)

The same load against the release server with rooms kept in a SQLite file (`--data PATH`) and
in memory only (`--data none`): --rooms rooms of --viewers viewers in all, one driver per room
playing the `reorder` script (tap-and-hold row moves, streaming: every move is written before it
is announced, and every input and frame is logged). Runs alternate, --runs of each, so drift on a
shared machine hits both alike; medians are compared. Then `scrollcast-bench-store` times the
restore of a room with 100,000 logged inputs. The last line is the headline
`durability_p99_ratio=N` (store on / store off; the goal is within 5 %, i.e. ≤ 1.05).
`python3 -m bench.durability --help` lists its flags (--viewers, --rooms, --duration, --runs).
"""

import json
import statistics
import subprocess
import tempfile
from pathlib import Path

from . import RELEASE
from .sampler import cpu_seconds
from .server import Server, bench_parser, log, require


def one_run(args, data, label):
    server = Server(args.server, data=data)
    try:
        json_path = Path(tempfile.mkstemp(prefix="scrollcast-durability-", suffix=".json")[1])
        command = [str(args.load), "--url", server.ws_url, "--rooms", str(args.rooms),
                   "--viewers", str(args.viewers // args.rooms - 1), "--drivers", "1", "--script", "reorder",
                   "--duration", str(args.duration), "--ramp", "2", "--json", str(json_path), "--room-prefix", label]
        log(" ".join(command) + f"   (server --data {data})")
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"durability: scrollcast-load exited {done.returncode}: {done.stderr.strip()[-400:]}")
        cpu = cpu_seconds(server.pid)
        return json.loads(json_path.read_text()), cpu
    finally:
        server.stop()


def main(argv=None):
    parser = bench_parser("durability", __doc__)
    parser.add_argument("--store-bench", type=Path, default=RELEASE / "scrollcast-bench-store")
    parser.add_argument("--viewers", type=int, default=500, help="connections in all, drivers included")
    parser.add_argument("--rooms", type=int, default=5)
    parser.add_argument("--duration", type=float, default=10, help="seconds measured per run")
    parser.add_argument("--runs", type=int, default=3, help="runs of each kind, alternating")
    args = parser.parse_args(argv)
    require(args.server, args.load, args.store_bench)
    results = {"file": [], "none": []}
    with tempfile.TemporaryDirectory(prefix="scrollcast-durability-") as folder:
        for run in range(args.runs):
            for kind in ("none", "file"):
                data = "none" if kind == "none" else str(Path(folder) / f"run{run}.sqlite")
                results[kind].append(one_run(args, data, f"{kind}{run}"))

    def median(kind, pick):
        return statistics.median(pick(report) for report, _ in results[kind])

    rows = []
    for kind, title in (("none", "`--data none` (memory)"), ("file", "`--data PATH` (SQLite)")):
        rows.append((title, median(kind, lambda r: r["framesPerSecond"]), median(kind, lambda r: r["latencyMs"]["p50"]),
                     median(kind, lambda r: r["latencyMs"]["p99"]), median(kind, lambda r: r["missedFrames"]),
                     median(kind, lambda r: r["inputsSent"]), statistics.median(cpu for _, cpu in results[kind])))
    store = subprocess.run([str(args.store_bench)], capture_output=True, text=True, check=True).stdout.strip().splitlines()

    print(f"\nDurability: {args.viewers} connections in {args.rooms} rooms (one driver each, `reorder` script: row moves "
          f"streaming), {args.duration:.0f} s per run, medians of {args.runs} alternating runs.\n")
    print("| store | frames/s | p50 (ms) | p99 (ms) | missed | inputs sent | server CPU (s) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for title, fps, p50, p99, missed, sent, cpu in rows:
        print(f"| {title} | {fps:.0f} | {p50:.2f} | {p99:.2f} | {missed:.0f} | {sent:.0f} | {cpu:.1f} |")
    fps_ratio = rows[1][1] / max(rows[0][1], 1e-9)
    p99_ratio = rows[1][3] / max(rows[0][3], 1e-9)
    print(f"\nframes/s ratio {fps_ratio:.3f}, p99 ratio {p99_ratio:.3f} (store on / off; goal: within 5 %)")
    print("\n" + "\n".join(store[:-1]))
    print(store[-1])
    print(f"durability_p99_ratio={p99_ratio:.3f}")


if __name__ == "__main__":
    main()
