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
from ladder_settings import (  # noqa: E402
    ROOT,
    SERVER,
    LOAD,
    PROBE,
    STEPS,
    ROOMS,
    DRIVERS,
    DURATION,
    RAMP,
    SCRIPT,
    PROBE_SECONDS,
    PROBE_RUNS,
    OUT,
    CAPACITY,
    CAPACITY_ROOMS,
    CAPACITY_SECONDS,
    LOAD_THREADS,
    PROTOCOL,
    WIRE_VIEWERS,
    WIRE_ONLY,
    CLOCK_TICKS,
    ws_header_bytes,
    load_average,
)
from ladder_plot import svg_plot  # noqa: E402
from ladder_report import wire_lines, wire_section, target_step, markdown, headline_line  # noqa: E402


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
