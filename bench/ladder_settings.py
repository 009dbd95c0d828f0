"""The ladder's settings (its command line: `python3 -m bench.ladder --help`) and its targets,
shared by the ladder (bench/ladder.py) and its report (bench/ladder_report.py)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

from . import ROOT
from .server import bench_parser

CAPACITY_SECONDS = 5.0
# Version 2's goal: a frame at most a tenth of version 1's bytes.
WIRE_TARGET_FRACTION = 0.10
# The targets of the performance report (issue "scrollcast-load"): p99 input-to-frame under one
# frame at 60 Hz with no missed frames, and the server's memory per viewer.
ONE_FRAME_MS = 1000 / 60
RSS_PER_VIEWER_TARGET_KIB = 20
NOTES = ROOT / "bench" / "where-the-time-goes.md"


def counts(text: str) -> list[int]:
    """A comma-separated list of viewer counts ("" is none)."""
    return [int(s) for s in text.split(",") if s.strip()]


@dataclass(frozen=True)
class LadderSettings:
    """One run of the ladder; the defaults are `make bench`'s."""
    server: Path = ROOT / ".build" / "release" / "scrollcast"
    load: Path = ROOT / ".build" / "release" / "scrollcast-load"
    probe: Path = ROOT / ".build" / "bench" / "loopback-probe"
    steps: list[int] = field(default_factory=lambda: [100, 250, 500, 750, 1000, 1500, 2000])
    rooms: int = 10
    drivers: int = 1
    duration: float = 15
    ramp: float = 3
    script: str = "drag"
    probe_seconds: float = 4
    probe_runs: int = 3
    out: Path = ROOT / "docs"
    capacity: int = 5000
    capacity_rooms: int = 10
    load_threads: str | None = None
    protocol: str = "v2"
    wire_viewers: int = 100
    wire_only: bool = False
    peer_steps: list[int] = field(default_factory=lambda: [100, 250, 500, 1000, 2000])
    node: str = "node"
    peer_node_path: Path = Path("/usr/share/nodejs")
    engine: bool = True


def parser(description: str | None = None) -> argparse.ArgumentParser:
    d = LadderSettings()
    p = bench_parser("ladder", description)
    p.add_argument("--probe", type=Path, default=d.probe, help="the loopback probe (bench/loopback-probe.c, built by make bench)")
    p.add_argument("--steps", type=counts, default=d.steps, help="viewer counts of the ladder, comma-separated")
    p.add_argument("--rooms", type=int, default=d.rooms)
    p.add_argument("--drivers", type=int, default=d.drivers, help="drivers per room")
    p.add_argument("--duration", type=float, default=d.duration, help="seconds measured per step")
    p.add_argument("--ramp", type=float, default=d.ramp)
    p.add_argument("--script", default=d.script, help="drag: the room moves all the time, so fan-out is loaded steadily")
    p.add_argument("--probe-seconds", type=float, default=d.probe_seconds)
    p.add_argument("--probe-runs", type=int, default=d.probe_runs, help="the median is used")
    p.add_argument("--out", type=Path, default=d.out, help="where benchmarks.md and benchmarks.svg are written")
    p.add_argument("--capacity", type=int, default=d.capacity,
                   help="connections one load process must hold in the check after the ladder; 0 skips it")
    p.add_argument("--capacity-rooms", type=int, default=d.capacity_rooms, help="500 viewers a room, so joins crowd each room")
    p.add_argument("--load-threads", default=d.load_threads, help="scrollcast-load --threads (default: the tool's own)")
    p.add_argument("--protocol", default=d.protocol, help="the ladder's and capacity check's --protocol")
    p.add_argument("--wire-viewers", type=int, default=d.wire_viewers,
                   help="viewers of the v1-vs-v2 comparison, in --rooms rooms; 0 skips it")
    p.add_argument("--wire-only", action="store_true", help="run only that comparison, print it, write nothing")
    p.add_argument("--peer-steps", type=counts, default=d.peer_steps,
                   help="the steps also run against the Node `ws` broadcaster (bench/peer_bench.py); empty skips it")
    p.add_argument("--node", default=d.node, help="the node binary of the peer")
    p.add_argument("--peer-node-path", type=Path, default=d.peer_node_path, help="where Debian's node-ws put `ws`")
    p.add_argument("--no-engine", dest="engine", action="store_false", help="skip `make bench-engine`'s figure")
    return p


def parse(argv: list[str] | None = None, description: str | None = None) -> LadderSettings:
    return LadderSettings(**vars(parser(description).parse_args(argv)))


def ws_header_bytes(payload: int) -> int:
    """A server's (unmasked) WebSocket frame header: 2 bytes up to 125 payload bytes, 4 up to 64 KiB."""
    return 2 if payload < 126 else 4 if payload < 65536 else 10
