"""The inputs ladder in `make bench` (`make bench-inputs`; `python3 -m bench.inputs_ladder --help`).

Issue 29: viewers that replicate take the room's inputs and hashed beats instead of 60 frames a
second. For each script (`fling`, `mixed`), on one release server, the same rooms and drivers run
in both streams: the frames stream (`scrollcast-load`, as the frames ladder) at --frames-steps,
stopping past the --compare steps after its first step that is not clean, and the inputs
stream (`--stream inputs --replica`: one native replica per room checks every beat) at --steps. Per step: server CPU and
bytes per viewer-second, p99 latency (input-to-replica at every watcher in the inputs stream,
input-to-frame at the drivers in the frames stream), missed, beats checked and keyframes, and
the load tool's own CPU (on this 2-core machine the load generator is often the limit, not the
server). Then the ratios inputs ÷ frames at --compare viewers and the largest clean step of each
stream. At --long-steps (every inputs step unless told) the inputs step runs again with every
connection asking for batches every --long-batch-ms (250 ms, the beat period, which the page asks
for: docs/wasm.md, "The batch period"; `scrollcast-load --batch-ms`): the ratios of both periods
side by side, with input-to-replica p50 and p99, and its own largest clean step, show what the
long period buys and costs. At --peer-steps the same inputs step runs right after against a plain Node `ws` relay of
the same batches (bench/peer-inputs.js in bench/peer-broadcaster.js). Writes its section of docs/benchmarks.md; the headline, last: the largest CPU ratio at
1,000 viewers over the scripts at the page's period (--long-batch-ms), after the same at one frame period.
"""

from __future__ import annotations

import time
from functools import partial

from . import peer_bench
from .benchmarks_doc import replace_section
from .inputs_figures import (beats, bytes_per_viewer_second, clean, cpu_us_per_viewer_second, joined, largest_clean,
                             missed, p50_ms, p99_ms, ratio)
from .ladder_settings import ONE_FRAME_MS
from .ladder_settings import counts
from .load_step import run_step
from .sampler import load_average, machine
from .server import Server, bench_parser, log, require

HEADING = "## Inputs stream: the inputs ladder beside the frames ladder"
HEADLINE_VIEWERS = 1000
STREAM_NAMES = {"frames": "frames", "inputs": "inputs", "long": "inputs, long batch period (the page's)",
                "relay": "`ws` relay (inputs)"}


def parse(argv=None):
    p = bench_parser("inputs_ladder", __doc__)
    p.add_argument("--scripts", default="fling,mixed", help="gesture scripts, comma-separated")
    p.add_argument("--frames-steps", type=counts, default=[250, 500, 1000, 1500, 2000, 3000],
                   help="viewer counts of the frames stream (past the --compare steps, stops after the first step that is not clean)")
    p.add_argument("--steps", type=counts, default=[1000, 1500, 2500, 5000, 10000],
                   help="viewer counts of the inputs stream")
    p.add_argument("--compare", type=counts, default=[1000, 1500], help="viewer counts whose inputs ÷ frames ratios are printed")
    p.add_argument("--rooms", type=int, default=10)
    p.add_argument("--drivers", type=int, default=1, help="drivers per room")
    p.add_argument("--duration", type=float, default=10, help="seconds measured per step")
    p.add_argument("--ramp", type=float, default=3, help="seconds of ramp per step (at least 1 s per 1,000 viewers)")
    p.add_argument("--load-threads", default=None, help="scrollcast-load --threads (default: the tool's own)")
    p.add_argument("--long-steps", type=counts, default=None,
                   help="inputs steps run again with --long-batch-ms batches (default: every --steps); empty skips them")
    p.add_argument("--long-batch-ms", type=int, default=250, help="the long batch period (scrollcast-load --batch-ms)")
    p.add_argument("--peer-steps", type=counts, default=[1000, 1500],
                   help="inputs steps also run against the Node `ws` relay (bench/peer-inputs.js); empty skips it")
    p.add_argument("--node", default="node", help="the node binary of the peer")
    p.add_argument("--peer-node-path", default="/usr/share/nodejs", help="where Debian's node-ws put `ws`")
    p.add_argument("--no-doc", dest="doc", action="store_false", help="print only; leave docs/benchmarks.md alone")
    settings = p.parse_args(argv)
    if settings.long_steps is None:
        settings.long_steps = settings.steps
    return settings


def fmt(value, digits=1):
    return "–" if value is None else f"{value:.{digits}f}"


def describe(step: dict, bound_ms: float = ONE_FRAME_MS) -> str:
    b = beats(step)
    return (f"cpu_us_per_viewer_second={fmt(cpu_us_per_viewer_second(step))} "
            f"bytes_per_viewer_second={fmt(bytes_per_viewer_second(step))} p50_ms={fmt(p50_ms(step))} p99_ms={fmt(p99_ms(step))} "
            f"missed={missed(step)} beats={b['checked']} mismatched={b['mismatched']} keyframes={b['keyframes']} "
            f"server_cpu={step['server_cpu_percent']:.0f}% load_cpu={step['load_cpu_percent']:.0f}% "
            f"clean={'yes' if clean(step, bound_ms) else 'no'}")


def bound(settings, stream: str) -> float:
    """The p99 a step must stay under to be clean: one frame, plus the long period for its steps."""
    return ONE_FRAME_MS + (settings.long_batch_ms if stream == "long" else 0)


def run_script(server: Server, peer, step, script: str, settings) -> dict:
    frames, inputs, long, relay = [], [], [], []
    for viewers in settings.frames_steps:
        frames.append(step(server, viewers, script=script, prefix=f"fr{script}"))
        log(f"{script} frames {viewers}: {describe(frames[-1])}")
        if not clean(frames[-1]) and viewers >= max(settings.compare, default=0):
            break
    for viewers in settings.steps:
        # Handshakes time out after 10 s in the load tool: big steps open over longer (1 s per 1,000).
        ramp = max(settings.ramp, viewers / 1000)
        inputs.append(step(server, viewers, script=script, prefix=f"in{script}", ramp=ramp,
                           extra=("--stream", "inputs", "--replica")))
        log(f"{script} inputs {viewers}: {describe(inputs[-1])}")
        if viewers in settings.long_steps:
            long.append(step(server, viewers, script=script, prefix=f"lg{script}", ramp=ramp,
                             extra=("--stream", "inputs", "--replica", "--batch-ms", str(settings.long_batch_ms))))
            log(f"{script} inputs, {settings.long_batch_ms} ms batches, {viewers}: {describe(long[-1], bound(settings, 'long'))}")
        if peer is not None and viewers in settings.peer_steps:
            # Right after Scrollcast's step, same load (no replica: the peer's hashes are made up).
            relay.append(step(peer, viewers, script=script, prefix=f"peer{script}", ramp=ramp, extra=("--stream", "inputs")))
            log(f"{script} ws relay {viewers}: {describe(relay[-1])}")
        if server.process.poll() is not None:
            raise SystemExit(f"bench: the server exited during the {viewers}-viewer inputs step; log: {server.log_file.name}")
    return {"frames": frames, "inputs": inputs, "long": long, "relay": relay}


def at(steps: list[dict], viewers: int):
    return next((s for s in steps if s["viewers"] == viewers), None)


def ratios(runs: dict, viewers: int, stream: str = "inputs"):
    f, i = at(runs["frames"], viewers), at(runs[stream], viewers)
    if f is None or i is None:
        return None, None
    return (ratio(cpu_us_per_viewer_second(i), cpu_us_per_viewer_second(f)),
            ratio(bytes_per_viewer_second(i), bytes_per_viewer_second(f)))


def section(settings, results: dict, info: dict, load_before: float, load_after: float, minutes: float) -> list[str]:
    lines = [HEADING, "",
             f"`make bench-inputs` (`python3 -m bench.inputs_ladder`), {minutes:.0f} min on {info['cores']} cores "
             f"({info['cpu']}), load average {load_before:.1f} before and {load_after:.1f} after: the machine is shared "
             "with other work, so CPU shares and p99 move between runs. One release server; "
             f"{settings.rooms} rooms, {settings.drivers} driver each (counted as viewers below: every connection receives), "
             f"{settings.duration:g} s measured per step. Frames: `scrollcast-load --script S`, stopping (past the compared "
             "steps) after the first step that is not clean. Inputs: the same with `--stream inputs --replica` (every viewer reads only the fronts "
             "of batches and beats; one native replica per room restores the snapshot's state, applies every batch and "
             "checks every beat's hash). CPU = the server's CPU over the window ÷ connections (µs per viewer-second); "
             "bytes = every message received ÷ connections ÷ seconds (connections: those that joined, the `joined` "
             "column); p99 = input-to-replica at every watcher (inputs) or "
             "input-to-frame at the drivers (frames); clean = p99 under one frame period (16.7 ms), nothing missed, every "
             "connection held, every beat matched and no keyframe (for the long batch period: p99 under that period plus one "
             "frame, what its batches add by design). Long batch period: the inputs step again with every connection "
             f"joining with `batchMs` {settings.long_batch_ms} (`scrollcast-load --batch-ms`). Load CPU = the load tool's own CPU (% of one core).",
             ""]
    for script, runs in results.items():
        lines += [f"**{script}**", "",
                  "| stream | viewers | joined | server CPU | µs CPU / viewer-s | bytes / viewer-s | p50 (ms) | p99 (ms) | missed | beats checked / mismatched | keyframes | load CPU | clean |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        for stream in ("frames", "inputs", "long", "relay"):
            replicated = stream in ("inputs", "long")
            for s in runs[stream]:
                b = beats(s)
                lines.append(
                    f"| {STREAM_NAMES[stream]} | {s['viewers']} | {joined(s)} / {s['report']['connections']} | {s['server_cpu_percent']:.0f}% | {fmt(cpu_us_per_viewer_second(s))} "
                    f"| {fmt(bytes_per_viewer_second(s))} | {fmt(p50_ms(s))} | {fmt(p99_ms(s))} | {missed(s)} "
                    f"| {b['checked'] if replicated else '–'} / {b['mismatched'] if replicated else '–'} "
                    f"| {b['keyframes'] if replicated else '–'} | {s['load_cpu_percent']:.0f}% | {'yes' if clean(s, bound(settings, stream)) else 'no'} |")
        lines.append("")
        for viewers in settings.compare:
            cpu, size = ratios(runs, viewers)
            lines.append(f"- at {viewers} viewers, inputs ÷ frames: server CPU per viewer-second **{fmt(cpu, 3)}**, "
                         f"bytes per viewer-second **{fmt(size, 3)}** (goal ≤ 0.1 each)")
            long_cpu, long_size = ratios(runs, viewers, "long")
            i, lg = at(runs["inputs"], viewers), at(runs["long"], viewers)
            if lg is not None:
                lines.append(f"  - with {settings.long_batch_ms} ms batches: CPU **{fmt(long_cpu, 3)}**, bytes **{fmt(long_size, 3)}**; "
                             f"input-to-replica p50 / p99 {fmt(p50_ms(lg))} / {fmt(p99_ms(lg))} ms against "
                             f"{fmt(p50_ms(i) if i else None)} / {fmt(p99_ms(i) if i else None)} ms at one frame period")
        for r in runs["relay"]:
            ours = at(runs["inputs"], r["viewers"])
            lines.append(f"- at {r['viewers']} viewers in the inputs stream, Scrollcast ÷ `ws` relay: server CPU per "
                         f"viewer-second **{fmt(ratio(cpu_us_per_viewer_second(ours), cpu_us_per_viewer_second(r)), 2)}**, "
                         f"bytes per viewer-second {fmt(ratio(bytes_per_viewer_second(ours), bytes_per_viewer_second(r)), 2)}")
        lines.append(f"- largest clean step: frames **{largest_clean(runs['frames'])}**, "
                     f"inputs **{largest_clean(runs['inputs'])}** (goal: ten times the frames'), "
                     f"inputs at {settings.long_batch_ms} ms (the page's period, p99 under it plus one frame) "
                     f"**{largest_clean(runs['long'], bound(settings, 'long'))}**")
        lines.append("")
    lines += ["`ws` relay: bench/peer-broadcaster.js (Node, Debian's node-ws, as in the frames ladder's peer) answering "
              "`\"stream\": \"inputs\"` with bench/peer-inputs.js: a v2 snapshot with an empty `replica`, every driver "
              "input relayed in the same v2 `batch` (the first after a quiet period at once, later ones at most once a "
              "frame period), beats 4 a second for 3 s after the room's last input with a made-up hash (it has no engine, "
              "so it computes no frame and the load tool runs without `--replica` against it), no frame encoded. Run right "
              "after Scrollcast's step at the same load." if any(runs["relay"] for runs in results.values()) else
              "The `ws` relay was not run (--peer-steps empty, or node or node-ws missing).", "",
              "Where the inputs stream's server CPU goes, and what was cut: \"Where the time goes\", §17.", ""]
    return lines


def main(argv=None):
    settings = parse(argv)
    require(settings.server, settings.load)
    began, load_before, info = time.monotonic(), load_average(), machine()
    step = partial(run_step, load=settings.load, rooms=settings.rooms, duration=settings.duration, ramp=settings.ramp,
                   drivers=settings.drivers, threads=settings.load_threads)
    # Its default limit is 10,000 viewers; the top step has 10,010 connections with its drivers.
    server = Server(settings.server, flags=("--max-viewers", str(2 * max(settings.steps + settings.frames_steps))))
    log(f"server pid {server.pid} on port {server.port}; machine {info}")
    missing = peer_bench.missing(settings.node, settings.peer_node_path) if settings.peer_steps else "no --peer-steps"
    peer = None if missing else peer_bench.start(settings.node, settings.peer_node_path)
    log(f"ws relay: {missing or f'pid {peer.pid} on port {peer.port}'}")
    results = {}
    try:
        time.sleep(1)  # the server settles after start-up before it is measured, not a synchronisation stand-in
        for script in [s for s in settings.scripts.split(",") if s]:
            results[script] = run_script(server, peer, step, script, settings)
    finally:
        server.stop()
        if peer is not None:
            peer.stop()
    if settings.doc:
        replace_section(HEADING, section(settings, results, info, load_before, load_average(),
                                         (time.monotonic() - began) / 60))
        log(f"wrote the section '{HEADING[3:]}' of docs/benchmarks.md")
    for script, runs in results.items():
        for stream in ("frames", "inputs", "long", "relay"):
            for s in runs[stream]:
                print(f"{script}_{stream}_{s['viewers']}: {describe(s, bound(settings, stream))}")
        for viewers in settings.compare:
            cpu, size = ratios(runs, viewers)
            long_cpu, long_size = ratios(runs, viewers, "long")
            print(f"{script}_ratio_{viewers}: cpu={fmt(cpu, 3)} bytes={fmt(size, 3)} "
                  f"long_cpu={fmt(long_cpu, 3)} long_bytes={fmt(long_size, 3)}")
        for r in runs["relay"]:
            ours = at(runs["inputs"], r["viewers"])
            print(f"{script}_relay_ratio_{r['viewers']}: "
                  f"cpu={fmt(ratio(cpu_us_per_viewer_second(ours), cpu_us_per_viewer_second(r)), 3)}")
        print(f"{script}_largest_clean: frames={largest_clean(runs['frames'])} inputs={largest_clean(runs['inputs'])} "
              f"long={largest_clean(runs['long'], bound(settings, 'long'))}")
    # One frame period first, then the page's (the headline, last): what a page viewer costs.
    for name, stream in (("inputs_one_frame_cpu_ratio", "inputs"), ("inputs_cpu_ratio", "long")):
        worst = [r for r in (ratios(runs, HEADLINE_VIEWERS, stream)[0] for runs in results.values()) if r is not None]
        print(f"{name}_{HEADLINE_VIEWERS}={fmt(max(worst), 3) if worst else 'none'}")


if __name__ == "__main__":
    main()
