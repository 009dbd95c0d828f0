"""The load ladder behind docs/benchmarks.md (`make bench`; `python3 -m bench.ladder --help`).

Starts the release server on a free port, runs `scrollcast-load` at each viewer count of the
ladder (same machine), samples the server's CPU and memory from /proc while each step measures,
runs the loopback probe at the same socket count and frame size to get the machine's own limit,
adds the engine's cost per frame from `make bench-engine`, runs the same steps against a plain
Node `ws` broadcaster (bench/peer_bench.py), the capacity check and the v1-vs-v2 comparison, and
writes its sections of docs/benchmarks.md (bench/where-the-time-goes.md, written by hand, is the
last) with an SVG plot; other benches' sections are kept. The headline is printed last as
name=value. Only the standard library is used.
"""

from __future__ import annotations

import statistics
import subprocess
import time
from functools import partial

from . import ROOT, peer_bench
from .benchmarks_doc import replace_sections
from .ladder_plot import svg_plot
from .ladder_report import headline_line, markdown, target_step, wire_lines, wire_section
from .ladder_settings import CAPACITY_SECONDS, LadderSettings, parse, ws_header_bytes
from .load_step import run_step
from .sampler import machine, rss_kib
from .server import Server, log, require


def run_probe(settings: LadderSettings, sockets: int, message_bytes: int):
    """The probe's writes/s: the median of --probe-runs runs, and all of them (a single run moved by
    a factor of two when anything else on this 2-core machine woke up)."""
    rates = []
    for _ in range(settings.probe_runs):
        out = subprocess.run([str(settings.probe), str(sockets), str(message_bytes), f"{settings.probe_seconds:g}"],
                             capture_output=True, text=True, timeout=settings.probe_seconds + 120)
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


def wire_comparison(settings: LadderSettings, step):
    """The same load in each protocol version, on a server of its own (so its rooms do not weigh
    on the ladder's memory): mean bytes per frame, and what the server spent."""
    server = Server(settings.server)
    log(f"server pid {server.pid} on port {server.port} for the v1/v2 comparison")
    runs = {}
    try:
        time.sleep(1)  # the server settles after start-up before it is measured, not a synchronisation stand-in
        for version in ("v1", "v2"):
            run = step(server, settings.wire_viewers, protocol=version, prefix=f"wire{version}-")
            r = run["report"]
            log(f"wire {version}: {r['bytesPerFrame']:.0f} bytes per frame, {r['framesPerSecond']:.0f} frames/s, "
                f"texts {r.get('textsBytes', 0)} bytes, server CPU {run['server_cpu_percent']:.0f}%")
            runs[version] = run
    finally:
        server.stop()
    return runs


def main(argv=None):
    settings = parse(argv, __doc__)
    require(settings.server, settings.load, *(() if settings.wire_only else (settings.probe,)))
    step = partial(run_step, load=settings.load, rooms=settings.rooms, duration=settings.duration, ramp=settings.ramp,
                   protocol=settings.protocol, drivers=settings.drivers, script=settings.script,
                   threads=settings.load_threads)
    if settings.wire_only:
        if settings.wire_viewers <= 0:
            raise SystemExit("bench: --wire-only needs --wire-viewers > 0")
        wire = wire_comparison(settings, step)
        print("\n".join(wire_section(settings, wire)))
        print("\n".join(wire_lines(wire)))
        return
    began = time.monotonic()
    info = machine()
    log(f"machine: {info}")
    engine_ns, engine_lines = engine_cost() if settings.engine else (None, "")
    server = Server(settings.server)
    log(f"server pid {server.pid} on port {server.port}")
    peer_missing = peer_bench.missing(settings.node, settings.peer_node_path) if settings.peer_steps else None
    peer = None if peer_missing or not settings.peer_steps else peer_bench.start(settings.node, settings.peer_node_path)
    if peer_missing:
        log(f"peer not run: {peer_missing}")
    elif peer is not None:
        log(f"peer (node ws broadcaster) pid {peer.pid} on port {peer.port}")
    peer_rows = []
    try:
        time.sleep(1)  # the server settles after start-up before its idle memory is read
        idle_rss = rss_kib(server.pid)
        steps = []
        for viewers in settings.steps:
            measured = step(server, viewers)
            if peer is not None and viewers in settings.peer_steps:
                # Right after Scrollcast's step, same load: the two are compared within minutes.
                peer_rows.append(peer_bench.row(measured, step(peer, viewers, prefix="peer")))
                log(peer_bench.lines(peer_rows[-1:])[0])
            frame_bytes = int(measured["report"]["bytesPerFrame"] or 2000)
            measured["probe"], measured["probe_runs"] = run_probe(settings, measured["connections"],
                                                                  frame_bytes + ws_header_bytes(frame_bytes))
            measured["fraction"] = measured["report"]["framesPerSecond"] / measured["probe"] if measured["probe"] else 0
            log(f"step {viewers}: {measured['report']['framesPerSecond']:.0f} frames/s, probe {measured['probe']:.0f}/s, "
                f"fraction {measured['fraction']:.2f}, server CPU {measured['server_cpu_percent']:.0f}%")
            steps.append(measured)
            if server.process.poll() is not None:
                raise SystemExit(f"bench: the server exited ({server.process.returncode}) during the {viewers}-viewer step; "
                                 f"log: {server.log_file.name}")
        capacity = None
        if settings.capacity > 0:
            capacity = step(server, settings.capacity, rooms=settings.capacity_rooms, duration=CAPACITY_SECONDS,
                            ramp=CAPACITY_SECONDS, prefix="capacity")
            r = capacity["report"]
            log(f"capacity: {r['peakConnected']}/{r['connections']} joined, {r['connectFailures']} failures, {r['disconnects']} disconnects")
    finally:
        server.stop()
        if peer is not None:
            peer.stop()
    wire = wire_comparison(settings, step) if settings.wire_viewers > 0 else None
    settings.out.mkdir(parents=True, exist_ok=True)
    (settings.out / "benchmarks.svg").write_text(svg_plot(steps, settings.rooms))
    preamble, sections = markdown(settings, steps, info, idle_rss, engine_ns, engine_lines, time.monotonic() - began,
                                  capacity, wire, peer_rows, peer_missing)
    replace_sections(sections, settings.out / "benchmarks.md", preamble=preamble)
    log(f"wrote the ladder's sections of {settings.out / 'benchmarks.md'} and {settings.out / 'benchmarks.svg'}")
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
