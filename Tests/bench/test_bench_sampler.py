"""bench.sampler against real processes: a child this test starts reports its own CPU time and
prints progress lines as scrollcast-load does; the sampler's reading of /proc must agree."""

from __future__ import annotations

import subprocess
import sys

import repo_on_path  # noqa: F401
from bench.sampler import MeasuringWindow, cpu_seconds, rss_kib

# A stand-in for scrollcast-load's stderr: a progress line per phase, each naming the child's own
# CPU time (process_time: user + system, as /proc's utime + stime), then it waits on stdin until
# the parent has sampled, so its CPU does not move between the line and the sample.
CHILD = r"""
import sys, time
burn, lines, megabytes = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
held = []
print("[00:00 ramping] 0 frames", file=sys.stderr, flush=True)
for i in range(lines):
    end = time.process_time() + burn
    while time.process_time() < end:
        pass
    if i == lines - 1 and megabytes:
        held.append(bytearray(b"x" * (megabytes << 20)))
    print(f"[00:0{i} measuring] cpu={time.process_time():.4f}", file=sys.stderr, flush=True)
    sys.stdin.readline()
print("[00:09 closing]", file=sys.stderr, flush=True)
"""


def follow_child(burn: float, lines: int = 3, megabytes: int = 0) -> tuple[MeasuringWindow, list[float]]:
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(burn), str(lines), str(megabytes)],
                             stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def ack() -> float:
        child.stdin.write("\n")
        child.stdin.flush()
        return 0.0

    try:
        window = MeasuringWindow({"cpu": lambda: cpu_seconds(child.pid), "rss": lambda: rss_kib(child.pid),
                                  "ack": ack}).follow(child.stderr)
    finally:
        child.stdin.close()
        child.wait(timeout=30)
    own = [float(line.split("cpu=")[1]) for line in window.lines if "measuring]" in line]
    return window, own


def test_the_window_spans_the_measuring_lines_only_and_reads_what_the_process_itself_used():
    window, own = follow_child(burn=0.25)
    assert len(window.lines) == 5 and len(window.samples) == 3 and window.complete
    # /proc counts in clock ticks (10 ms): the two readings agree to a couple of them.
    assert abs(window.delta("cpu") - (own[-1] - own[0])) < 0.03, (window.delta("cpu"), own)
    assert window.delta("cpu") > 0.4
    # One thread keeps at most one core busy, whatever else the machine runs.
    assert 0 < window.rate("cpu") <= 1.05


def test_a_process_that_waits_uses_no_cpu_in_the_window():
    window, own = follow_child(burn=0.0)
    assert window.delta("cpu") < 0.03 and own[-1] - own[0] < 0.03
    assert window.rate("cpu") < 0.5


def test_memory_a_process_touches_shows_in_its_rss():
    window, _ = follow_child(burn=0.0, lines=2, megabytes=64)
    assert 60 * 1024 <= window.delta("rss") <= 80 * 1024, window.delta("rss")


def test_fewer_than_two_measuring_lines_make_no_window():
    window, _ = follow_child(burn=0.0, lines=1)
    assert not window.complete and window.seconds == 0 and window.delta("cpu") == 0 and window.rate("cpu") == 0
