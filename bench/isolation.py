#!/usr/bin/env python3
"""Is the room thread kept free of slow work? (issue 20, "Nothing slow on it")

One release server with a SQLite file holding a room of 100,000 log entries (a 7 MB recording).
Two comparisons, each as two `scrollcast-load` runs against that server:

1. p99 input-to-frame at 1,000 viewers (10 rooms × (100 viewers + 1 driver), `drag` script),
   alone and while four clients (curl) download the long room's recording in a loop (the server
   runs two exports at once; the others get 503 and ask again). Goal: ratio ≤ 1.1.
2. Server CPU per delivered frame with 500 rooms × (1 viewer + 1 driver) against 10 rooms ×
   (100 viewers + 1 driver), the issue's goal (within 20 %), and against 10 rooms × (1 + 1), the
   same shape with fewer rooms: what a live room costs beyond its frames (bench/isolation_cpu.py).

Prints a markdown section and puts it into docs/benchmarks.md ("## Isolation
(make bench-isolation)", kept as it is by `make bench`); the last line is the headline
`isolation_p99_ratio=N`. `python3 -m bench.isolation --help` lists its flags.
"""

import datetime
import os
import subprocess
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

from recording_helpers import seed_long_room  # the export tests' long room (Tests/e2e)

from .benchmarks_doc import replace_section
from .isolation_cpu import costs, report_lines
from .ladder_report import fmt
from .load_step import run_step
from .sampler import load_average, machine
from .server import Server, bench_parser, require

ENTRIES = 100_000
DOWNLOADERS = 4
SECTION = "## Isolation (make bench-isolation)"


class Downloads:
    """DOWNLOADERS curl loops fetching the long room's recording until stopped."""

    def __init__(self, server):
        self.url = f"http://{server.host}:{server.port}/recording?room=long"
        self.stop = threading.Event()
        self.codes: list[str] = []
        self.threads = [threading.Thread(target=self._loop, daemon=True) for _ in range(DOWNLOADERS)]
        for thread in self.threads:
            thread.start()

    def _loop(self):
        while not self.stop.is_set():
            # niced: on a real network the downloading clients would not share the server's cores
            done = subprocess.run(["nice", "-n", "10", "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", self.url],
                                  capture_output=True, text=True)
            self.codes.append(done.stdout.strip() or "error")
            if done.stdout.strip() == "503":
                self.stop.wait(0.2)  # asks again soon: the point is to keep both export slots busy

    def finish(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=120)
        return self.codes.count("200"), self.codes.count("503"), len(self.codes)


class RunQueueWaits:
    """How long the server's room thread ("ws-server") and the load generator's client thread
    ("ws-client") waited for a CPU while runnable during one `run_step` (ramp included), from
    /proc/PID/task/TID/schedstat: the p99 part's evidence of whose scheduling moves the latency."""

    def __init__(self, server):
        self.server_pid = server.pid
        self.stop = threading.Event()
        self.first: dict = {}
        self.last: dict = {}
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    @staticmethod
    def _sample(pid, name):
        """(seconds waited, wake-ups) summed over `pid`'s threads called `name`, or None."""
        waited, slices, found = 0, 0, False
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                if (task / "comm").read_text().strip() != name:
                    continue
                _, wait_ns, count = map(int, (task / "schedstat").read_text().split())
            except (OSError, ValueError):
                continue
            waited, slices, found = waited + wait_ns / 1e9, slices + count, True
        return (waited, slices) if found else None

    def _load_pid(self):
        for entry in Path("/proc").iterdir():
            try:
                stat = (entry / "stat").read_text()
                if stat[stat.index("(") + 1:stat.rindex(")")] == "scrollcast-load" and \
                        int(stat[stat.rindex(")") + 2:].split()[1]) == os.getpid():
                    return int(entry.name)
            except (OSError, ValueError):
                continue
        return None

    def _watch(self):
        load_pid = None
        while not self.stop.is_set():
            load_pid = load_pid or self._load_pid()
            now = time.monotonic()
            for key, pid, name in (("room", self.server_pid, "ws-server"), ("load", load_pid, "ws-client")):
                sample = self._sample(pid, name) if pid else None
                if sample:
                    self.first.setdefault(key, (now, *sample))
                    self.last[key] = (now, *sample)
            self.stop.wait(0.5)  # a sampling period, not a synchronisation stand-in

    def finish(self):
        """{"room"/"load": (ms waited per s, µs waited per wake-up)} over the run."""
        self.stop.set()
        self.thread.join()
        out = {}
        for key in self.first:
            (t0, w0, n0), (t1, w1, n1) = self.first[key], self.last[key]
            if t1 > t0:
                out[key] = (1000 * (w1 - w0) / (t1 - t0), 1e6 * (w1 - w0) / max(n1 - n0, 1))
        return out


def waits_text(name, quiet, busy):
    if name not in quiet or name not in busy:
        return "not measured"
    return (f"{quiet[name][0]:.0f} → {busy[name][0]:.0f} ms per s "
            f"({quiet[name][1]:.0f} → {busy[name][1]:.0f} µs per wake-up)")


def row(name, shape, step):
    r = step["report"]
    lat = r.get("latencyMs") or {}
    cpu = costs(step)
    return (f"| {name} | {shape} | {r['framesPerSecond']:.0f} | {fmt(lat.get('p50'))} | "
            f"{fmt(lat.get('p99'))} | {r['missedFrames']} | {step['server_cpu_percent']:.0f}% | "
            f"{cpu.us_per_delivery:.1f} | {cpu.us_per_room_frame:.0f} |")


def main(argv=None):
    parser = bench_parser("isolation", __doc__)
    parser.add_argument("--duration", type=float, default=15, help="seconds measured per run")
    args = parser.parse_args(argv)
    require(args.server, args.load)
    step = partial(run_step, load=args.load, rooms=10, duration=args.duration)
    began = time.monotonic()
    started_at = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load_before = load_average()
    directory = Path(tempfile.mkdtemp(prefix="scrollcast-isolation-"))
    data = directory / "rooms.sqlite"
    server = Server(args.server, data=data)
    try:
        seed_long_room(data, "long", ENTRIES)
        waits = RunQueueWaits(server)
        quiet = step(server, 1000, prefix="quiet")
        quiet_waits = waits.finish()
        downloads = Downloads(server)
        time.sleep(1)  # the downloads get going before the measured run starts, not a synchronisation stand-in
        waits = RunQueueWaits(server)
        busy = step(server, 1000, prefix="busy")
        busy_waits = waits.finish()
        served, refused, asked = downloads.finish()
        many = step(server, 500, rooms=500, prefix="many")
        same = step(server, 10, prefix="same")
        few = step(server, 1000, prefix="few")
    finally:
        server.stop()
        data.unlink(missing_ok=True)
    p99_ratio = busy["report"]["latencyMs"]["p99"] / max(quiet["report"]["latencyMs"]["p99"], 1e-9)
    header = ("| run | rooms × (viewers + drivers) | frames/s delivered | p50 (ms) | p99 (ms) | missed | server CPU "
              "| server CPU per delivered frame (µs) | per room frame (µs) |")
    lines = [
        SECTION, "",
        f"`make bench-isolation` (script: `bench/isolation.py`): one release server with `--data` holding a room of "
        f"{ENTRIES:,} log entries (a 7 MB recording), `drag` script, {args.duration:.0f} s measured per run after a 3 s "
        f"ramp; {started_at}; {machine()['cores']} cores, shared with other work (1-minute load average "
        f"{load_before:.1f} at the start); load generator, curl and server on the same machine; run took "
        f"{time.monotonic() - began:.0f} s. Not rewritten by `make bench`.", "",
        "Input-to-frame while the recording downloads (four curl loops; two exports run at once, the others are "
        f"answered 503 and ask again 0.2 s later: {served} downloads served, {refused} refused, during the second run):", "",
        header, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        row("alone", "10 × (100 + 1)", quiet), row("4 clients downloading", "10 × (100 + 1)", busy), "",
        f"p99 ratio **{p99_ratio:.2f}** (goal ≤ 1.1). Where `missed` runs to thousands, the load generator (one "
        "thread, on the same two cores as everything else) could not keep up, and its latencies are its own more "
        "than the server's: compare such runs with care.", "",
        "Waiting for a CPU while runnable, alone → downloading (/proc schedstat over each run, ramp included): "
        f"the server's room thread {waits_text('room', quiet_waits, busy_waits)}; the load generator's thread "
        f"{waits_text('load', quiet_waits, busy_waits)}. Both sit on the same two cores as the downloads, so "
        "either one's waits show in the p99 (docs/design.md, \"What downloads cost the room thread\").", "",
    ]
    cpu_lines, figures = report_lines(
        costs(many), costs(same), costs(few),
        rows=[row("500 small rooms", "500 × (1 + 1)", many), row("10 small rooms", "10 × (1 + 1)", same),
              row("10 large rooms", "10 × (100 + 1)", few)],
        header=["Many small rooms against a few large ones, and against as few rooms of the same shape (per "
                "delivered frame: one frame to one connection):", "", header,
                "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"])
    lines += cpu_lines + [""]
    print("\n" + "\n".join(lines))
    replace_section(SECTION, lines)
    for name, value in figures.items():
        print(f"{name}={value:.2f}")
    print(f"isolation_p99_ratio={p99_ratio:.2f}")


if __name__ == "__main__":
    main()
