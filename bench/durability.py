#!/usr/bin/env python3
"""What does durability cost? (durable rooms issue, `make bench-durability`)

The same load against the release server with rooms kept in a SQLite file (`--data PATH`) and
in memory only (`--data none`): ROOMS rooms of VIEWERS viewers in all, one driver per room
playing the `reorder` script (tap-and-hold row moves, streaming: every move is written before it
is announced, and every input and frame is logged). Runs alternate, RUNS of each, so drift on a
shared machine hits both alike; medians are compared. Then `scrollcast-bench-store` times the
restore of a room with 100,000 logged inputs. The last line is the headline
`durability_p99_ratio=N` (store on / store off; the goal is within 5 %, i.e. ≤ 1.05).
"""

import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("ladder", ROOT / "bench" / "run-ladder.py")
ladder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ladder)

VIEWERS = int(os.environ.get("DURABILITY_VIEWERS", "500"))
ROOMS = int(os.environ.get("DURABILITY_ROOMS", "5"))
DURATION = float(os.environ.get("DURABILITY_DURATION", "10"))
RUNS = int(os.environ.get("DURABILITY_RUNS", "3"))
STORE_BENCH = ROOT / ".build" / "release" / "scrollcast-bench-store"


def one_run(data, label):
    server = ladder.Server(data=data)
    try:
        json_path = Path(tempfile.mkstemp(prefix="scrollcast-durability-", suffix=".json")[1])
        command = [str(ladder.LOAD), "--url", f"ws://{server.host}:{server.port}/ws", "--rooms", str(ROOMS),
                   "--viewers", str(VIEWERS // ROOMS - 1), "--drivers", "1", "--script", "reorder",
                   "--duration", str(DURATION), "--ramp", "2", "--json", str(json_path), "--room-prefix", label]
        ladder.log(" ".join(command) + f"   (server --data {data})")
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"durability: scrollcast-load exited {done.returncode}: {done.stderr.strip()[-400:]}")
        cpu = ladder.cpu_seconds(server.pid)
        return json.loads(json_path.read_text()), cpu
    finally:
        server.stop()


def main():
    for binary in (ladder.SERVER, ladder.LOAD, STORE_BENCH):
        if not Path(binary).exists():
            raise SystemExit(f"durability: {binary} is missing; run `swift build -c release` first")
    results = {"file": [], "none": []}
    with tempfile.TemporaryDirectory(prefix="scrollcast-durability-") as folder:
        for run in range(RUNS):
            for kind in ("none", "file"):
                data = "none" if kind == "none" else str(Path(folder) / f"run{run}.sqlite")
                results[kind].append(one_run(data, f"{kind}{run}"))

    def median(kind, pick):
        return statistics.median(pick(report) for report, _ in results[kind])

    rows = []
    for kind, title in (("none", "`--data none` (memory)"), ("file", "`--data PATH` (SQLite)")):
        rows.append((title, median(kind, lambda r: r["framesPerSecond"]), median(kind, lambda r: r["latencyMs"]["p50"]),
                     median(kind, lambda r: r["latencyMs"]["p99"]), median(kind, lambda r: r["missedFrames"]),
                     median(kind, lambda r: r["inputsSent"]), statistics.median(cpu for _, cpu in results[kind])))
    store = subprocess.run([str(STORE_BENCH)], capture_output=True, text=True, check=True).stdout.strip().splitlines()

    print(f"\nDurability: {VIEWERS} connections in {ROOMS} rooms (one driver each, `reorder` script: row moves "
          f"streaming), {DURATION:.0f} s per run, medians of {RUNS} alternating runs.\n")
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
