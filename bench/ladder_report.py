"""The report `make bench` writes from the ladder's measured steps (bench/ladder.py): the
markdown of docs/benchmarks.md, the targets and the headline line (the plot is bench/ladder_plot.py).
Pure functions of the steps; nothing here measures."""
from . import peer_bench
from .benchmarks_doc import split
from .frame_cost import step_us_per_frame
from .ladder_settings import (
    CAPACITY_SECONDS,
    NOTES,
    ONE_FRAME_MS,
    RSS_PER_VIEWER_TARGET_KIB,
    WIRE_TARGET_FRACTION,
    LadderSettings,
)
from .sampler import load_average

# The sections the ladder writes only when it ran their part: removed when it did not, so no
# figure of an older run stands beside this run's.
OPTIONAL_SECTIONS = ("## Peer: a plain `ws` broadcaster", "## Wire protocol: version 1 vs version 2", "## Capacity check")


def capacity_section(settings: LadderSettings, capacity, idle_rss):
    """Whether one load process held CAPACITY connections (joined, none dropped)."""
    if capacity is None:
        return []
    r = capacity["report"]
    held = r["peakConnected"] == r["connections"] and r["connectFailures"] == 0 and r["disconnects"] == 0
    per_viewer = (capacity["server_rss_kib"] - idle_rss) / max(1, capacity["connections"])
    return [
        "## Capacity check",
        "",
        f"One `scrollcast-load` process, {settings.capacity_rooms} rooms × ({r['viewers'] // settings.capacity_rooms} viewers + {settings.drivers} driver) = "
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


def wire_fraction(wire):
    v1, v2 = wire["v1"]["report"]["bytesPerFrame"], wire["v2"]["report"]["bytesPerFrame"]
    return v2 / v1 if v1 else 0


def wire_lines(wire):
    """name=value lines for the comparison (printed by `make bench`)."""
    v1, v2 = wire["v1"]["report"], wire["v2"]["report"]
    with_texts = (v2["frameBytes"] + v2["textsBytes"]) / max(1, v2["framesReceived"])
    return [f"bytes_per_frame_v1={v1['bytesPerFrame']:.0f}", f"bytes_per_frame_v2={v2['bytesPerFrame']:.0f}",
            f"bytes_per_frame_v2_with_texts={with_texts:.0f}", f"v2_bytes_fraction_of_v1={wire_fraction(wire):.3f}"]


def wire_section(settings: LadderSettings, wire):
    if wire is None:
        return []
    fraction = wire_fraction(wire)
    lines = [
        "## Wire protocol: version 1 vs version 2",
        "",
        f"The same load twice, once per protocol (`scrollcast-load --protocol v1|v2`), on a server of its own after the ladder: {settings.rooms} rooms × "
        f"({settings.wire_viewers // settings.rooms} viewers + {settings.drivers} driver) playing `{settings.script}`, {settings.duration:g} s measured. "
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
        ("server CPU per delivered frame (µs)", lambda s: fmt(step_us_per_frame(s))),
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


def markdown(settings: LadderSettings, steps, info, idle_rss, engine_ns, engine_lines, total_seconds, capacity=None,
             wire=None, peer_rows=(), peer_missing=None):
    """The ladder's part of docs/benchmarks.md: the lines before the first section, and its sections
    as (heading, lines) for benchmarks_doc.replace_sections; a part that did not run comes with no
    lines, which removes its section."""
    c = settings
    command = (f"scrollcast-load --url ws://127.0.0.1:PORT/ws --rooms {c.rooms} --viewers VIEWERS/{c.rooms} "
               f"--drivers {c.drivers} --script {c.script} --duration {c.duration:g} --ramp {c.ramp:g} "
               f"--protocol {c.protocol} --json STEP.json")
    lines = [
        "# Benchmarks",
        "",
        "Measured by `make bench` (script: `bench/ladder.py`; load generator: `scrollcast-load`;",
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
        *wire_section(settings, wire),
        "## Engine cost per frame",
        "",
        (f"`make bench-engine`: **engine_ns_per_frame={engine_ns:.0f}** ({engine_ns / 1000:.1f} µs to produce one frame of one room)."
         if engine_ns is not None else "`make bench-engine` gave no figure in this run."),
        "",
        "## Ladder",
        "",
        f"{c.rooms} rooms, {c.drivers} driver per room playing the `{c.script}` script, {c.duration:g} s measured per step after a {c.ramp:g} s ramp, "
        f"every connection speaking protocol {c.protocol} (`--protocol {c.protocol}`).",
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
    lines += capacity_section(settings, capacity, idle_rss)
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
    preamble, sections = split("\n".join(lines))
    made = {heading for heading, _ in sections}
    return preamble, sections + [(heading, []) for heading in OPTIONAL_SECTIONS if heading not in made]


def headline_line(steps):
    """The fraction of the probe's limit at the largest step within one frame (0 when none was)."""
    best = target_step(steps)
    return f"fraction_of_limit_within_one_frame={best['fraction'] if best else 0:.2f}"


def fmt(value):
    return "–" if value is None else f"{value:.1f}"
