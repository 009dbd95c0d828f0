#!/usr/bin/env python3
"""The load ladder behind docs/benchmarks.md (run it with `make bench`).

Starts the release server on a free port, runs `scrollcast-load` at each viewer count of the
ladder (same machine), samples the server's CPU and memory from /proc while each step measures,
runs the loopback probe at the same socket count and frame size to get the machine's own limit,
adds the engine's cost per frame from `make bench-engine`, and writes the report with an SVG
plot. The headline figure is printed last as name=value.

Environment (all optional): BENCH_STEPS (viewer counts, default 100,250,500,750,1000,1500,2000),
BENCH_ROOMS (10), BENCH_DRIVERS (drivers per room, 1), BENCH_DURATION (seconds measured per
step, 15), BENCH_RAMP (3), BENCH_SCRIPT (drag: the room moves all the time, so fan-out is loaded steadily), BENCH_PROBE_SECONDS (4),
BENCH_PROBE_RUNS (3; the median is used), BENCH_OUT (docs),
BENCH_CAPACITY (connections one load process must hold in the capacity check after the ladder, 5000; 0 skips it),
BENCH_CAPACITY_ROOMS (10: 500 viewers a room, so joins crowd each room), BENCH_LOAD_THREADS (scrollcast-load --threads; default: the tool's own),
BENCH_PROTOCOL (the ladder's and capacity check's `--protocol`, v2), BENCH_WIRE_VIEWERS (the v1-vs-v2 comparison's
viewers, 100, in BENCH_ROOMS rooms; 0 skips it), BENCH_WIRE_ONLY (1: run only that comparison, print it, write nothing).
BENCH_PEER_STEPS (the steps also run against the Node `ws` broadcaster; see bench/peer_bench.py).
bench/where-the-time-goes.md (profiles and before/after figures, written by hand) is appended to the report.
Only the standard library is used.
"""
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peer_bench  # noqa: E402  (bench/peer_bench.py: the `ws` broadcaster beside each step)

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


def log(message):
    print(f"bench: {message}", file=sys.stderr, flush=True)


def machine():
    model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    mem_kib = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            mem_kib = int(line.split()[1])
    return {
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kib / 1024 / 1024, 1),
        "cpu": model,
        "kernel": platform.release(),
        "loadavg": load_average(),
    }


def load_average():
    """1-minute load average: other work on the machine competes with the server and the probe."""
    return float(Path("/proc/loadavg").read_text().split()[0])


def cpu_seconds(pid):
    """utime + stime of a process, in seconds (fields 14 and 15 of /proc/PID/stat)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    # The command name may contain spaces; fields are counted after its closing parenthesis.
    fields = text[text.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Server:
    """The release server on a free port; its output goes to a log file. `data` is its `--data`
    (memory only unless a benchmark measures the store); `flags` are added (e.g. a cluster node's
    `--redis URL --node-id ID`)."""

    def __init__(self, data="none", flags=(), command=None, env=None):
        self.log_file = tempfile.NamedTemporaryFile("w+", prefix="scrollcast-bench-", suffix=".log", delete=False)
        # `command` runs another server that announces itself the same way (the peer broadcaster).
        self.process = subprocess.Popen(
            command or [str(SERVER), "--host", "127.0.0.1", "--port", "0", "--public", str(ROOT / "Public"),
                        "--data", str(data), *flags],
            stdout=subprocess.PIPE, stderr=self.log_file, text=True, cwd=ROOT, env=env)
        first = self.process.stdout.readline()
        match = re.search(r"listening on http://([^:/\s]+):(\d+)", first)
        if not match:
            self.stop()
            raise SystemExit(f"bench: the server did not announce its port (first line: {first!r}); log: {self.log_file.name}")
        self.host, self.port = match.group(1), int(match.group(2))
        # Keep draining stdout so a chatty server never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.process.stdout:
            self.log_file.write(line)

    @property
    def pid(self):
        return self.process.pid

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def run_step(server, viewers, rooms=ROOMS, duration=DURATION, ramp=RAMP, protocol=PROTOCOL, prefix="ladder"):
    per_room = max(1, viewers // rooms)
    json_path = Path(tempfile.mkstemp(prefix="scrollcast-load-", suffix=".json")[1])
    command = [
        str(LOAD), "--url", f"ws://{server.host}:{server.port}/ws", "--rooms", str(rooms),
        "--viewers", str(per_room), "--drivers", str(DRIVERS), "--script", SCRIPT,
        "--duration", str(duration), "--ramp", str(ramp), "--json", str(json_path),
        "--room-prefix", f"{prefix}{viewers}x{rooms}", "--protocol", protocol,
    ] + (["--threads", LOAD_THREADS] if LOAD_THREADS else [])
    log(f"step {viewers} viewers: {' '.join(command)}")
    started = time.monotonic()
    load = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # scrollcast-load prints a progress line a second (plain lines: stderr is a pipe) naming its
    # phase; the server is sampled at each, and only samples taken while it measured count.
    samples = []
    stderr_lines = []
    for line in load.stderr:
        stderr_lines.append(line)
        if "measuring]" in line:
            try:
                samples.append((time.monotonic(), cpu_seconds(server.pid), cpu_seconds(load.pid), rss_kib(server.pid)))
            except (OSError, ValueError):
                pass
    stdout = load.stdout.read()
    load.wait(timeout=120)
    stderr = "".join(stderr_lines)
    elapsed = time.monotonic() - started
    sys.stderr.write(stdout)
    if load.returncode != 0:
        log(f"step {viewers}: scrollcast-load exited {load.returncode}: {stderr.strip().splitlines()[-1:]}")
    if len(samples) >= 2:
        (t0, cpu0, load_cpu0, _), (t1, cpu1, load_cpu1, rss) = samples[0], samples[-1]
    else:
        t0, t1, cpu0, cpu1, load_cpu0, load_cpu1, rss = 0, 1, 0, 0, 0, 0, rss_kib(server.pid)
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
        "exit": load.returncode,
        "server_cpu_percent": 100 * (cpu1 - cpu0) / (t1 - t0),
        "load_cpu_percent": 100 * (load_cpu1 - load_cpu0) / (t1 - t0),
        "server_rss_kib": rss,
        "seconds": elapsed,
    }


def run_probe(sockets, message_bytes):
    """The probe's writes/s: the median of PROBE_RUNS runs, and all of them (a single run moved by
    a factor of two when anything else on this 2-core machine woke up)."""
    rates = []
    for _ in range(PROBE_RUNS):
        out = subprocess.run([str(PROBE), str(sockets), str(message_bytes), str(PROBE_SECONDS)],
                             capture_output=True, text=True, timeout=PROBE_SECONDS + 120)
        if out.returncode != 0:
            raise SystemExit(f"bench: probe failed: {out.stderr.strip()}")
        values = dict(line.split("=", 1) for line in out.stdout.split() if "=" in line)
        rates.append(float(values["probe_writes_per_second"]))
    return statistics.median(rates), rates


def engine_cost():
    out = subprocess.run(["make", "--no-print-directory", "bench-engine"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    lines = [line for line in out.stdout.splitlines() if "=" in line]
    if out.returncode != 0 or not lines or not lines[-1].startswith("engine_ns_per_frame="):
        log(f"make bench-engine gave no engine_ns_per_frame (exit {out.returncode})")
        return None, out.stdout[-2000:]
    return float(lines[-1].split("=", 1)[1]), "\n".join(lines)


def svg_plot(steps):
    """p99 latency (left axis) and delivered frames/s (right axis) against viewers."""
    width, height = 640, 360
    left, right, top, bottom = 70, 80, 30, 50
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = [s["viewers"] for s in steps]
    p99 = [(s["report"].get("latencyMs") or {}).get("p99", 0) for s in steps]
    fps = [s["report"]["framesPerSecond"] for s in steps]
    x_max = max(xs) or 1
    p_max = nice_ceiling(max(p99) or 1)
    f_max = nice_ceiling(max(fps) or 1)

    def x(v): return left + plot_w * v / x_max
    def y_p(v): return top + plot_h * (1 - v / p_max)
    def y_f(v): return top + plot_h * (1 - v / f_max)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14">p99 input-to-frame latency and delivered frames/s ({ROOMS} rooms)</text>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="black"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#c0392b"/>',
        f'<line x1="{left + plot_w}" y1="{top}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#2471a3"/>',
    ]
    for i in range(5):
        fraction = i / 4
        gy = top + plot_h * (1 - fraction)
        parts.append(f'<line x1="{left}" y1="{gy:.1f}" x2="{left + plot_w}" y2="{gy:.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{left - 6}" y="{gy + 4:.1f}" text-anchor="end" fill="#c0392b">{p_max * fraction:g}</text>')
        parts.append(f'<text x="{left + plot_w + 6}" y="{gy + 4:.1f}" fill="#2471a3">{int(f_max * fraction)}</text>')
    for v in xs:
        parts.append(f'<text x="{x(v):.1f}" y="{top + plot_h + 16}" text-anchor="middle">{v}</text>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 10}" text-anchor="middle">viewers</text>')
    parts.append(f'<text x="16" y="{top + plot_h / 2}" fill="#c0392b" transform="rotate(-90 16 {top + plot_h / 2})" text-anchor="middle">p99 latency (ms)</text>')
    parts.append(f'<text x="{width - 14}" y="{top + plot_h / 2}" fill="#2471a3" transform="rotate(90 {width - 14} {top + plot_h / 2})" text-anchor="middle">frames/s delivered</text>')
    for values, scale, colour in ((p99, y_p, "#c0392b"), (fps, y_f, "#2471a3")):
        points = " ".join(f"{x(v):.1f},{scale(w):.1f}" for v, w in zip(xs, values))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for v, w in zip(xs, values):
            parts.append(f'<circle cx="{x(v):.1f}" cy="{scale(w):.1f}" r="3.5" fill="{colour}"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def nice_ceiling(value):
    """The next 1, 2, 2.5 or 5 × 10^n at or above value, for round axis labels."""
    magnitude = 10 ** len(str(int(value))) / 10 if value >= 1 else 1
    for factor in (1, 2, 2.5, 5, 10):
        if value <= factor * magnitude:
            return factor * magnitude
    return 10 * magnitude


def capacity_section(capacity, idle_rss):
    """Whether one load process held CAPACITY connections (joined, none dropped)."""
    if capacity is None:
        return []
    r = capacity["report"]
    held = r["peakConnected"] == r["connections"] and r["connectFailures"] == 0 and r["disconnects"] == 0
    per_viewer = (capacity["server_rss_kib"] - idle_rss) / max(1, capacity["connections"])
    return [
        "## Capacity check",
        "",
        f"One `scrollcast-load` process, {CAPACITY_ROOMS} rooms × ({r['viewers'] // CAPACITY_ROOMS} viewers + {DRIVERS} driver) = "
        f"{r['connections']} connections, {CAPACITY_SECONDS:g} s ramp, {CAPACITY_SECONDS:g} s measured "
        "(at this size the server and the load generator, sharing two cores, cannot keep every viewer at 60 frames/s; "
        "it is a check that the connections are held):",
        "",
        f"- **{'held' if held else 'NOT held'}**: peak joined {r['peakConnected']} of {r['connections']}, "
        f"{r['connectFailures']} connect failures, {r['disconnects']} disconnects, exit status {capacity['exit']}",
        f"- server RSS {capacity['server_rss_kib'] / 1024:.1f} MiB, {per_viewer:.1f} KiB per connection over the idle server "
        f"(this server also ran the ladder before); server CPU {capacity['server_cpu_percent']:.0f}%, "
        f"load generator CPU {capacity['load_cpu_percent']:.0f}%",
        f"- {r['framesPerSecond']:.0f} frames/s received, {r['skippedFrames'] if r.get('skippedFrames') is not None else '–'} skipped by the server for lagging readers",
        "",
    ]


def run_wire_comparison(server):
    """The same load in each protocol version: mean bytes per frame, and what the server spent."""
    runs = {}
    for version in ("v1", "v2"):
        step = run_step(server, WIRE_VIEWERS, protocol=version, prefix=f"wire{version}-")
        r = step["report"]
        frames = r["framesReceived"] or 1
        step["cpu_us_per_frame"] = step["server_cpu_percent"] / 100 * r["measuredSeconds"] * 1e6 / frames
        log(f"wire {version}: {r['bytesPerFrame']:.0f} bytes per frame, {r['framesPerSecond']:.0f} frames/s, "
            f"texts {r.get('textsBytes', 0)} bytes, server CPU {step['server_cpu_percent']:.0f}%")
        runs[version] = step
    return runs


def wire_comparison():
    """The comparison on a server of its own, so its rooms do not weigh on the ladder's memory."""
    server = Server()
    log(f"server pid {server.pid} on port {server.port} for the v1/v2 comparison")
    try:
        time.sleep(1)
        return run_wire_comparison(server)
    finally:
        server.stop()


def wire_fraction(wire):
    v1, v2 = wire["v1"]["report"]["bytesPerFrame"], wire["v2"]["report"]["bytesPerFrame"]
    return v2 / v1 if v1 else 0


def wire_lines(wire):
    """name=value lines for the comparison (printed by `make bench`)."""
    v1, v2 = wire["v1"]["report"], wire["v2"]["report"]
    with_texts = (v2["frameBytes"] + v2["textsBytes"]) / max(1, v2["framesReceived"])
    return [f"bytes_per_frame_v1={v1['bytesPerFrame']:.0f}", f"bytes_per_frame_v2={v2['bytesPerFrame']:.0f}",
            f"bytes_per_frame_v2_with_texts={with_texts:.0f}", f"v2_bytes_fraction_of_v1={wire_fraction(wire):.3f}"]


def wire_section(wire):
    if wire is None:
        return []
    fraction = wire_fraction(wire)
    lines = [
        "## Wire protocol: version 1 vs version 2",
        "",
        f"The same load twice, once per protocol (`scrollcast-load --protocol v1|v2`), on a server of its own after the ladder: {ROOMS} rooms × "
        f"({WIRE_VIEWERS // ROOMS} viewers + {DRIVERS} driver) playing `{SCRIPT}`, {DURATION:g} s measured. "
        "Bytes are WebSocket payloads as received; version 2's `texts` (row texts, section titles and panel "
        "labels, sent once per room) are counted apart and, in the last row, spread over the frames.",
        "",
        "| | version 1 (JSON) | version 2 (binary) |",
        "| --- | ---: | ---: |",
    ]
    v1, v2 = wire["v1"], wire["v2"]
    rows = [
        ("frames/s delivered", lambda s: f"{s['report']['framesPerSecond']:.0f}"),
        ("mean bytes per frame", lambda s: f"**{s['report']['bytesPerFrame']:.0f}**"),
        ("`texts` bytes in the window", lambda s: f"{s['report'].get('textsBytes', 0)}"),
        ("bytes per frame with texts", lambda s: f"{(s['report']['frameBytes'] + s['report'].get('textsBytes', 0)) / max(1, s['report']['framesReceived']):.0f}"),
        ("bytes received per second", lambda s: f"{s['report']['bytesReceived'] / max(s['report']['measuredSeconds'], 1e-9):,.0f}"),
        ("latency p50 / p99 (ms)", lambda s: f"{fmt((s['report'].get('latencyMs') or {}).get('p50'))} / {fmt((s['report'].get('latencyMs') or {}).get('p99'))}"),
        ("server CPU", lambda s: f"{s['server_cpu_percent']:.0f}%"),
        ("server CPU per delivered frame (µs)", lambda s: f"{s['cpu_us_per_frame']:.1f}"),
        ("load generator CPU", lambda s: f"{s['load_cpu_percent']:.0f}%"),
    ]
    for name, cell in rows:
        lines.append(f"| {name} | {cell(v1)} | {cell(v2)} |")
    met = "met" if fraction <= WIRE_TARGET_FRACTION else "not met"
    lines += ["", f"Version 2's mean frame is **{100 * fraction:.1f} %** of version 1's "
              f"(target ≤ {100 * WIRE_TARGET_FRACTION:.0f} %: {met}).", ""]
    return lines


def within_one_frame(step):
    """Whether a step met the latency target: p99 under one frame and no missed frames."""
    p99 = (step["report"].get("latencyMs") or {}).get("p99")
    return p99 is not None and p99 < ONE_FRAME_MS and step["report"]["missedFrames"] == 0


def target_step(steps):
    """The largest viewer count that kept p99 under one frame with nothing missed, or None."""
    meeting = [s for s in steps if within_one_frame(s)]
    return max(meeting, key=lambda s: s["viewers"]) if meeting else None


def targets_section(steps, idle_rss, capacity):
    best = target_step(steps)
    largest = max(steps, key=lambda s: s["viewers"])
    per_viewer = (largest["server_rss_kib"] - idle_rss) / max(1, largest["connections"])
    lines = ["## Targets", ""]
    if best is None:
        lines.append(f"- **No step kept p99 under one frame ({ONE_FRAME_MS:.1f} ms) with no missed frames.**")
    else:
        met = "met" if best["fraction"] >= 0.9 else "not met"
        lines.append(
            f"- Largest viewer count with p99 input-to-frame under one frame ({ONE_FRAME_MS:.1f} ms) and no missed "
            f"frames: **{best['viewers']}** (p99 {best['report']['latencyMs']['p99']:.1f} ms). There the server delivered "
            f"{best['report']['framesPerSecond']:.0f} frames/s against the probe's {best['probe']:.0f} writes/s: "
            f"**fraction of limit {best['fraction']:.2f}** (target ≥ 0.9: {met}).")
    lines.append(
        f"- Server RSS per viewer at {largest['viewers']} viewers: **{per_viewer:.1f} KiB** "
        f"(target < {RSS_PER_VIEWER_TARGET_KIB}: {'met' if per_viewer < RSS_PER_VIEWER_TARGET_KIB else 'not met'}).")
    if capacity is not None:
        r = capacity["report"]
        held = r["peakConnected"] == r["connections"] and r["connectFailures"] == 0 and r["disconnects"] == 0
        lines.append(f"- One load process held {r['peakConnected']} of {r['connections']} connections "
                     f"(target 5000: {'met' if held and r['connections'] >= 5000 else 'not met'}).")
    lines.append("")
    return lines


def markdown(steps, info, idle_rss, engine_ns, engine_lines, command, total_seconds, capacity=None, wire=None,
             peer_rows=(), peer_missing=None):
    lines = [
        "# Benchmarks",
        "",
        "Measured by `make bench` (script: `bench/run-ladder.py`; load generator: `scrollcast-load`;",
        "probe: `bench/loopback-probe.c`). Regenerate with `make bench`; every figure below comes",
        "from that one run. The load generator runs on the same machine as the server and shares",
        "its cores, so the figures are a floor for what the server alone could do.",
        "",
        "## Command",
        "",
        "```",
        "make bench",
        f"# per step: {command}",
        "```",
        "",
        "## Machine",
        "",
        f"- cores: {info['cores']}",
        f"- memory: {info['memory_gib']} GiB",
        f"- CPU: {info['cpu']}",
        f"- kernel: {info['kernel']}",
        f"- run took {total_seconds:.0f} s in all; idle server RSS {idle_rss / 1024:.1f} MiB",
        f"- 1-minute load average {info['loadavg']:.1f} at the start and {load_average():.1f} at the end of the run"
        + (f" on {info['cores']} cores: other processes competed for the CPU, so every figure (probe included)"
           " is lower than on an idle machine" if max(info['loadavg'], load_average()) > info['cores'] else ""),
        "",
        *targets_section(steps, idle_rss, capacity),
        *peer_bench.section(list(peer_rows), peer_missing),
        *wire_section(wire),
        "## Engine cost per frame",
        "",
        (f"`make bench-engine`: **engine_ns_per_frame={engine_ns:.0f}** ({engine_ns / 1000:.1f} µs to produce one frame of one room)."
         if engine_ns is not None else "`make bench-engine` gave no figure in this run."),
        "",
        "## Ladder",
        "",
        f"{ROOMS} rooms, {DRIVERS} driver per room playing the `{SCRIPT}` script, {DURATION:g} s measured per step after a {RAMP:g} s ramp, "
        f"every connection speaking protocol {PROTOCOL} (`--protocol {PROTOCOL}`).",
        "",
        "| viewers | connections | frames/s delivered | latency p50 (ms) | latency p99 (ms) | fan-out p99 (ms) | missed | skipped | server CPU | server RSS (MiB) | RSS per viewer (KiB) | bytes per frame | probe writes/s | fraction of limit | load generator CPU |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for s in steps:
        r = s["report"]
        lat = r.get("latencyMs") or {}
        fan = r.get("fanoutMs") or {}
        skipped = "–" if r.get("skippedFrames") is None else f"{r['skippedFrames']:.0f}"
        per_viewer = (s["server_rss_kib"] - idle_rss) / max(1, s["connections"])
        lines.append(
            f"| {s['viewers']} | {s['connections']} | {r['framesPerSecond']:.0f} | {fmt(lat.get('p50'))} | {fmt(lat.get('p99'))} "
            f"| {fmt(fan.get('p99'))} | {r['missedFrames']} | {skipped} | {s['server_cpu_percent']:.0f}% | {s['server_rss_kib'] / 1024:.1f} "
            f"| {per_viewer:.1f} | {r['bytesPerFrame']:.0f} | {s['probe']:.0f} | {s['fraction']:.2f} | {s['load_cpu_percent']:.0f}% |")
    lines += ["", "Per step:", ""]
    for s in steps:
        r = s["report"]
        note = "" if s["exit"] == 0 else f" (scrollcast-load exited {s['exit']}: {r['connectFailures']} connect failures, {r['errors']} errors)"
        lines.append(f"- {s['viewers']} viewers: fraction of limit: {s['fraction']:.2f}; {r['framesReceived']} frames, "
                     f"{r['lagGapFrames']} frames in gaps while the client lagged, {r['inputsSent']} inputs; "
                     f"probe runs {', '.join(f'{rate:.0f}' for rate in s['probe_runs'])} writes/s{note}")
    lines += [
        "",
        "![p99 latency and delivered frames/s against viewers](benchmarks.svg)",
        "",
    ]
    lines += capacity_section(capacity, idle_rss)
    lines += kept_sections()
    lines += [
        "## What the columns mean",
        "",
        "- **frames/s delivered**: frames received by all connections of the step per second of the",
        "  measurement window (`framesPerSecond` in `scrollcast-load --json`).",
        "- **latency**: input-to-frame as the drivers see it: from sending input id N to receiving the",
        "  first frame whose `input` names this driver with an id ≥ N. HDR histogram percentiles.",
        "- **fan-out**: frame `sentAt` (server wall clock at encoding) to its receipt by a connection;",
        "  same machine, same clock.",
        "- **missed**: frames absent from the `seq` sequence of a connection that *kept up*: the frames",
        "  on both sides of the gap arrived within `--kept-up-ms` (50 ms) of their `sentAt`. Gaps while",
        "  the load generator itself lagged are counted apart (`lagGapFrames`): the server skips frames",
        "  for a slow reader by design, and a slow reader here is the load generator.",
        "- **skipped**: the server's `scrollcast_frames_skipped_total` counter, delta over the step.",
        "- **server CPU**: utime+stime delta from `/proc/PID/stat` over the window, % of one core",
        "  (100% = one core busy). **RSS** from `/proc/PID/status` at the end of the window;",
        "  **RSS per viewer** is (RSS − idle RSS) ÷ connections.",
        "- **bytes per frame**: mean payload size of the frame messages received (JSON text in",
        "  protocol version 1, binary in version 2, whose row texts come apart in `texts` messages).",
        "- **probe writes/s**: the median of three runs of `bench/loopback-probe` (each run is listed",
        "  under Per step) with the same number of loopback TCP sockets and",
        "  messages of the frame's size (+ its WebSocket header, 2 or 4 bytes): one thread writes round",
        "  robin as fast as it can, another reads all; no WebSocket, no engine. **fraction of limit**",
        "  = frames/s delivered ÷ probe writes/s. A room produces 60 frames/s while it animates and up",
        "  to 120 while input arrives faster than that, so a low fraction at small viewer counts means",
        "  the demand was low, not the server.",
        "",
        "## scrollcast-load",
        "",
        "`scrollcast-load --help` lists the options. One process splits the rooms between `--threads`",
        "client threads (default: half the online CPUs, at most 8 and at most `--rooms`), each a WebSocket client",
        "with its own service thread; all connections of a room share a thread, so a driver's latency is",
        "timed on one thread, and the counts of all threads are merged for the progress line and the",
        "report. Every thread's measurement window starts once all threads' connections have settled",
        "after the ramp. Connections open over `--ramp` seconds; the",
        "measurement window is the `--duration` seconds after the ramp. Each room gets `--viewers`",
        "viewers (watch only) and `--drivers` drivers (watch and play the `--script` gesture loop",
        "with `--seed`: `fling`, `drag`, `wheel`, `keys`, `reorder`, `mixed`; inputs carry the",
        "script's planned timestamps `t`, moves every 8–16 ms, reorder holds ≥ 600 ms).",
        "",
        "With several URLs (`--url ws://A/ws,ws://B/ws,ws://C/ws`: the nodes of one cluster, node 0",
        "first), room r's first node is r mod N and viewer k of room r connects to node (r + k) mod N, so",
        "every room has viewers on several nodes. Viewer 0 founds the room: it opens first and the room's",
        "other connections wait for its snapshot, so the room runs on its first node, which the report",
        "takes for the owner (`--owner-hint first-node`; the load tool never asks Redis, so give each run",
        "a fresh `--room-prefix`). Drivers go by `--driver-node`: `other` (the default: never the room's",
        "first node; driver j on node (r + 1 + j mod (N − 1)) mod N, so every input is forwarded to the",
        "owner), `first`, or `alternate` (even rooms `first`, odd rooms `other`: local and remote latency",
        "from one run). Every connection hashes each frame's raw message (FNV-1a 64) per room and `seq`,",
        "keeping a room's last 256 seqs (fewer past about 10,000 rooms), and compares it with what the",
        "room's other connections got for that `seq`.",
        "",
        "`--replica` checks every frame against a native replica of the engine (the ScrollReplica code",
        "the page's WebAssembly runs, docs/wasm.md): every connection joins with `\"inputs\": true` and",
        "receives the `applied` messages (docs/protocol.md, \"Inputs applied\"). Per room and node, on",
        "the room's client thread, the first connection to get its snapshot is the reference: its",
        "messages, decoded in order, drive a `ReplicaFollower`, which starts at the snapshot (or the",
        "first frame at rest after it), applies the relayed inputs and computes each frame the",
        "reference receives. Every frame of every connection to that node (the reference's",
        "included) is compared byte for byte (`sentAt` aside: the server's is used) with the",
        "replica's frame for its `seq`; a connection ahead of the reference waits for it. One engine",
        "run per frame of a room and node, not per connection: the protocol gives every viewer of a",
        "room the same bytes for a `seq`, so that replica frame is what each connection must have",
        "received, and each connection's own bytes are still compared. Not compared (`notCompared`):",
        "frames while the reference's replica is not running (the room in motion at its snapshot,",
        "or after a mismatch until the next frame at rest), and `seq`s the reference itself skipped",
        "(the server's latest-frame slot). Counts cover the whole run from each snapshot (ramp",
        "included); works with `--protocol v1|v2`, `--link PROFILE` and `--url A,B,C`. A load",
        "connection never resumes, so `resumed` does not arise.",
        "",
        "It prints one progress line per second on stderr (redrawn in place on a terminal), a table",
        "at the end, and with `--json PATH` a report with these fields:",
        "",
        "| field | meaning |",
        "| --- | --- |",
        "| `rooms`, `viewers`, `drivers`, `connections` | the plan: viewers and drivers summed over all rooms |",
        "| `threads` | client threads the rooms were split between (`--threads`) |",
        "| `peakConnected` | most connections that had their snapshot at one time |",
        "| `measuredSeconds` | length of the measurement window |",
        "| `connectFailures` | connections that never got a snapshot (refused, unreachable, closed before it) |",
        "| `disconnects` | joined connections the server closed or lost before the end |",
        "| `framesReceived`, `framesPerSecond` | frames received by all connections in the window |",
        "| `subprotocol` | `scrollcast.v2` (binary; the default) or `scrollcast.v1` (JSON), from `--protocol v2\\|v1` |",
        "| `frameBytes`, `bytesPerFrame` | their payload size (JSON text in v1, binary in v2) |",
        "| `textsBytes` | bytes of version 2's `texts` messages (row texts sent once per room; 0 in v1) |",
        "| `missedFrames` | `seq` gaps at connections that kept up (both neighbouring frames within `keptUpMs` of their `sentAt`) |",
        "| `lagGapFrames` | `seq` gaps while the connection lagged (the server skips frames for slow readers) |",
        "| `keptUpMs` | the threshold above (`--kept-up-ms`, default 50) |",
        "| `skippedFrames` | delta of the server's `scrollcast_frames_skipped_total` over the run (`null` if `/metrics` has no such counter) |",
        "| `latencyMs` | `{count, p50, p90, p99, p999, max}` of input-to-frame at the drivers (`null` if none) |",
        "| `fanoutMs` | `{count, p50, p99, max}` of `sentAt` → receipt at every connection |",
        "| `interArrivalJitterMs` | `{count, p50, p99, max}` of \\|arrival gap − `sentAt` gap\\| of successive frames at a connection (docs/links.md) |",
        "| `link` | with `--link PROFILE` (emulated network, docs/links.md): profile, model, seed, the emulator's `timingErrorUs` `{count, p50, p99, max}`, `cpuSeconds`, `cpuPercent`, chunks, stalls; `null` without |",
        "| `bytesReceived` | all message bytes received in the window |",
        "| `clientCpuSeconds`, `clientCpuUsPerFrame` | CPU the load process itself used in the window (all its threads, the in-process link included), and that per frame received |",
        "| `inputsSent`, `inputsRefused` | driver inputs in the window, and those the server refused |",
        "| `errors`, `errorReasons` | every problem seen, counted by reason |",
        "| `urls`, `nodeConnections` | cluster runs only, like the fields below (absent with one URL): the nodes, and the connections planned on each |",
        "| `ownerHint`, `driverNode` | `first-node`, and `--driver-node` |",
        "| `localDrivers`, `remoteDrivers` | drivers on the node that runs their room (its first node) and on another node |",
        "| `latencyLocalMs`, `latencyRemoteMs` | `latencyMs` of those two groups (`null` for an empty one) |",
        "| `identityChecked` | (room, `seq`) pairs whose frame reached connections on at least two nodes, over the whole run (ramp included) |",
        "| `identityMismatches`, `identityMismatchExamples` | pairs whose bytes differed between two connections (any nodes), and the first five, naming room, `seq` and nodes |",
        "| `replica` | with `--replica`: `{compared, identical, mismatches, notCompared, mismatchExamples}`, the last the first five mismatches with room, `seq`, node, connection and both frames' bytes in hex; `null` without |",
        "",
        "The exit status is non-zero when a connection failed or was dropped, when no frame arrived,",
        "when drivers ran but no input was answered, when two connections got different bytes for",
        "one room's `seq`, or when a frame differed from the replica's (`--replica`); a server that is not there is reported as",
        "`no server at URL: connection refused` before any WebSocket is opened.",
        "",
    ]
    if engine_lines:
        lines += ["`make bench-engine` output:", "", "```", engine_lines.strip(), "```", ""]
    if NOTES.exists():
        lines += [NOTES.read_text().rstrip(), ""]
    last = peer_bench.headline(list(peer_rows)) if peer_rows else headline_line(steps)
    lines += [f"Headline (the last line `make bench` prints): `{last}`", ""]
    return "\n".join(lines)


# Sections other benchmarks' runs were pasted into by hand (their figures come from a run of their
# own, not this one): rewriting the report keeps them as they are.
KEPT_SECTIONS = ("## Cluster (make bench-cluster)", "## Links (make bench-links)", "## Isolation (make bench-isolation)",
                 "## Replica check (scrollcast-load --replica)")


def kept_sections():
    """The KEPT_SECTIONS of the current report (each up to the next `## ` heading), as lines."""
    path = OUT / "benchmarks.md"
    if not path.exists():
        return []
    kept = []
    current = None
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            current = line if line in KEPT_SECTIONS else None
        if current is not None:
            kept.append(line)
    if kept and kept[-1] != "":
        kept.append("")
    return kept


def headline_line(steps):
    """The fraction of the probe's limit at the largest step within one frame (0 when none was)."""
    best = target_step(steps)
    return f"fraction_of_limit_within_one_frame={best['fraction'] if best else 0:.2f}"


def fmt(value):
    return "–" if value is None else f"{value:.1f}"


def main():
    for binary in (SERVER, LOAD) + (() if WIRE_ONLY else (PROBE,)):
        if not binary.exists():
            raise SystemExit(f"bench: {binary} is missing; run `make bench` (it builds everything first)")
    began = time.monotonic()
    info = machine()
    log(f"machine: {info}")
    engine_ns, engine_lines = (None, "") if WIRE_ONLY else engine_cost()
    wire = None
    if WIRE_ONLY:
        if WIRE_VIEWERS <= 0:
            raise SystemExit("bench: BENCH_WIRE_ONLY needs BENCH_WIRE_VIEWERS > 0")
        wire = wire_comparison()
        print("\n".join(wire_section(wire)))
        print("\n".join(wire_lines(wire)))
        return
    server = Server()
    log(f"server pid {server.pid} on port {server.port}")
    peer_missing = peer_bench.missing() if peer_bench.STEPS else None
    peer = None if peer_missing or not peer_bench.STEPS else peer_bench.start(Server)
    if peer_missing:
        log(f"peer not run: {peer_missing}")
    elif peer is not None:
        log(f"peer (node ws broadcaster) pid {peer.pid} on port {peer.port}")
    peer_rows = []
    try:
        time.sleep(1)
        idle_rss = rss_kib(server.pid)
        steps = []
        for viewers in STEPS:
            step = run_step(server, viewers)
            if peer is not None and viewers in peer_bench.STEPS:
                # Right after Scrollcast's step, same load: the two are compared within minutes.
                peer_rows.append(peer_bench.row(step, run_step(peer, viewers, prefix="peer")))
                log(peer_bench.lines(peer_rows[-1:])[0])
            frame_bytes = step["report"]["bytesPerFrame"] or 2000
            step["probe"], step["probe_runs"] = run_probe(step["connections"], int(frame_bytes) + ws_header_bytes(int(frame_bytes)))
            step["fraction"] = step["report"]["framesPerSecond"] / step["probe"] if step["probe"] else 0
            log(f"step {viewers}: {step['report']['framesPerSecond']:.0f} frames/s, probe {step['probe']:.0f}/s, "
                f"fraction {step['fraction']:.2f}, server CPU {step['server_cpu_percent']:.0f}%")
            steps.append(step)
            if server.process.poll() is not None:
                raise SystemExit(f"bench: the server exited ({server.process.returncode}) during the {viewers}-viewer step; log: {server.log_file.name}")
        capacity = None
        if CAPACITY > 0:
            capacity = run_step(server, CAPACITY, rooms=CAPACITY_ROOMS, duration=CAPACITY_SECONDS, ramp=CAPACITY_SECONDS,
                                prefix="capacity")
            r = capacity["report"]
            log(f"capacity: {r['peakConnected']}/{r['connections']} joined, {r['connectFailures']} failures, {r['disconnects']} disconnects")
    finally:
        server.stop()
        if peer is not None:
            peer.stop()
    if WIRE_VIEWERS > 0:
        wire = wire_comparison()
    OUT.mkdir(parents=True, exist_ok=True)
    command = (f"scrollcast-load --url ws://127.0.0.1:PORT/ws --rooms {ROOMS} --viewers VIEWERS/{ROOMS} --drivers {DRIVERS} "
               f"--script {SCRIPT} --duration {DURATION:g} --ramp {RAMP:g} --protocol {PROTOCOL} --json STEP.json")
    (OUT / "benchmarks.svg").write_text(svg_plot(steps))
    (OUT / "benchmarks.md").write_text(markdown(steps, info, idle_rss, engine_ns, engine_lines, command, time.monotonic() - began,
                                                capacity, wire, peer_rows, peer_missing))
    log(f"wrote {OUT / 'benchmarks.md'} and {OUT / 'benchmarks.svg'}")
    if engine_ns is not None:
        print(f"engine_ns_per_frame={engine_ns:.0f}")
    for s in steps:
        lat = s["report"].get("latencyMs") or {}
        print(f"step_{s['viewers']}: frames_per_second={s['report']['framesPerSecond']:.0f} p99_ms={lat.get('p99', 0):.1f} "
              f"missed={s['report']['missedFrames']} fraction_of_limit={s['fraction']:.2f}")
    if capacity is not None:
        r = capacity["report"]
        print(f"capacity: connections={r['connections']} peak_joined={r['peakConnected']} failures={r['connectFailures']} disconnects={r['disconnects']}")
    if wire is not None:
        print("\n".join(wire_lines(wire)))
    best = target_step(steps)
    print(f"largest_viewers_within_one_frame={best['viewers'] if best else 0}")
    print(headline_line(steps))
    if peer_rows:
        print("\n".join(peer_bench.lines(peer_rows)))


if __name__ == "__main__":
    main()
