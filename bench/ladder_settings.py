"""The ladder's settings (environment variables, documented in run-ladder.py) and targets, shared
by the ladder (bench/run-ladder.py) and its report (bench/ladder_report.py)."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RELEASE = ROOT / ".build" / "release"
SERVER = Path(os.environ.get("SCROLLCAST_BIN", RELEASE / "scrollcast"))
LOAD = Path(os.environ.get("SCROLLCAST_LOAD_BIN", RELEASE / "scrollcast-load"))
PROBE = Path(os.environ.get("LOOPBACK_PROBE_BIN", ROOT / ".build" / "bench" / "loopback-probe"))
STEPS = [int(s) for s in os.environ.get("BENCH_STEPS", "100,250,500,750,1000,1500,2000").split(",") if s.strip()]
ROOMS = int(os.environ.get("BENCH_ROOMS", "10"))
DRIVERS = int(os.environ.get("BENCH_DRIVERS", "1"))
DURATION = float(os.environ.get("BENCH_DURATION", "15"))
RAMP = float(os.environ.get("BENCH_RAMP", "3"))
SCRIPT = os.environ.get("BENCH_SCRIPT", "drag")
PROBE_SECONDS = float(os.environ.get("BENCH_PROBE_SECONDS", "4"))
PROBE_RUNS = int(os.environ.get("BENCH_PROBE_RUNS", "3"))
OUT = Path(os.environ.get("BENCH_OUT", ROOT / "docs"))
CAPACITY = int(os.environ.get("BENCH_CAPACITY", "5000"))
CAPACITY_ROOMS = int(os.environ.get("BENCH_CAPACITY_ROOMS", "10"))
CAPACITY_SECONDS = 5.0
LOAD_THREADS = os.environ.get("BENCH_LOAD_THREADS")
PROTOCOL = os.environ.get("BENCH_PROTOCOL", "v2")
WIRE_VIEWERS = int(os.environ.get("BENCH_WIRE_VIEWERS", "100"))
WIRE_ONLY = os.environ.get("BENCH_WIRE_ONLY", "") not in ("", "0")
# Version 2's goal: a frame at most a tenth of version 1's bytes.
WIRE_TARGET_FRACTION = 0.10
# The targets of the performance report (issue "scrollcast-load"): p99 input-to-frame under one
# frame at 60 Hz with no missed frames, and the server's memory per viewer.
ONE_FRAME_MS = 1000 / 60
RSS_PER_VIEWER_TARGET_KIB = 20
NOTES = ROOT / "bench" / "where-the-time-goes.md"
def ws_header_bytes(payload):
    """A server's (unmasked) WebSocket frame header: 2 bytes up to 125 payload bytes, 4 up to 64 KiB."""
    return 2 if payload < 126 else 4 if payload < 65536 else 10


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
def load_average():
    """1-minute load average: other work on the machine competes with the server and the probe."""
    return float(Path("/proc/loadavg").read_text().split()[0])
