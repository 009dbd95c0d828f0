#!/usr/bin/env python3
"""What does a cluster cost? (issue 15, `make bench-cluster`)

The same load twice on release builds: --rooms rooms × --viewers viewers (the room's first viewer
included) and one driver per room playing `drag`, measured --duration s after a --ramp s ramp:

  (a) one node, no Redis (`scrollcast --data none`);
  (b) three nodes on one Redis (`--redis URL --node-id nI`), `scrollcast-load --url A,B,C
      --driver-node alternate`: viewers spread round robin over the nodes, each room run by its
      first node, drivers of even rooms on that node (local), of odd rooms on another (remote:
      their inputs are forwarded to the owner), so local and remote latency come from one run.

Printed: frames/s delivered, input-to-frame p50/p99 (local vs remote in (b); the goal is remote −
local p99 ≤ 2 ms), server CPU (sum of the nodes, /proc/PID/stat utime+stime over the measurement
window), Redis CPU (same, of redis-server), broker bytes per frame (the nodes' /metrics:
scrollcast_cluster_broker_bytes_total ÷ scrollcast_cluster_frames_published_total, deltas over the
window), the mean broker lag (scrollcast_cluster_broker_lag_seconds: the owner's publish to another
node's receipt, wall clocks), the cross-node identity check, and warnings or errors the nodes logged. Then
redis-benchmark PUBLISHes payloads of the measured bytes per frame on the same Redis (pipelined
-P 16 and not, without subscribers and with the N − 1 subscribers a room's channel has when every
node but the owner has viewers of it), and the rooms at 60 frames/s that rate could carry. The
last line is the headline `cluster_remote_minus_local_p99_ms=X`.

`--stream inputs` runs both in the inputs stream (issue 29; docs/cluster.md, "The inputs stream
across nodes"), `scrollcast-load --stream inputs --replica`: every viewer replicates, no frame is
published; latency is then input-to-batch (a driver holding its own input with the mark past it),
and the table adds the replica's beats, keyframes and input-to-replica p99. Its goals: the nodes'
CPU at most 1.3 × one node's, remote − local p99 at most 2 ms; the last line is the headline
`cluster_inputs_cpu_ratio=X` (the nodes' CPU ÷ one node's).

`python3 -m bench.cluster --help` lists its flags: --rooms (20), --viewers (per room, 10),
--duration (20), --ramp (3), --nodes (3), --script (drag), --publishes (redis-benchmark -n, 200000),
--stream (frames).
"""

import json
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

from redis_helpers import RedisServer  # the e2e tests' private redis-server (Tests/e2e)

from .sampler import MeasuringWindow, cpu_seconds, machine
from .server import Server, bench_parser, log, require

GOAL_MS = 2.0
CPU_RATIO_GOAL = 1.3
FPS = 60
BROKER_BYTES = "scrollcast_cluster_broker_bytes_total"
FRAMES_PUBLISHED = "scrollcast_cluster_frames_published_total"
STREAM_PUBLISHED = "scrollcast_cluster_stream_messages_published_total"
BROKER_LAG = "scrollcast_cluster_broker_lag_seconds"
LOG_PROBLEM = re.compile(r"^\S+ (warning|error|critical) ")


def metrics(server):
    """Every sample of the node's /metrics, `name{labels}` → value."""
    with urllib.request.urlopen(f"http://{server.host}:{server.port}/metrics", timeout=5) as response:
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            try:
                samples[name] = float(value)
            except ValueError:
                pass
    return samples


def counter(samples, name):
    """The sample `name{labels}` if labels are given, else the sum over every label set of `name`."""
    if "{" in name:
        return samples.get(name, 0.0)
    return sum(value for key, value in samples.items() if key.split("{")[0] == name)


def run_load(args, servers, redis, prefix, extra=()):
    """One scrollcast-load run against `servers` (one URL each); returns its JSON report and the
    CPU seconds per second of the servers, Redis and the load generator over the measurement
    window, and the broker counters' deltas over it. The window is found as the ladder does: the
    load tool's progress lines name their phase, and /proc and /metrics are read at the first and
    last line that says `measuring`."""
    urls = ",".join(f"ws://{s.host}:{s.port}/ws" for s in servers)
    json_path = Path(tempfile.mkstemp(prefix="scrollcast-cluster-", suffix=".json")[1])
    command = [str(args.load), "--url", urls, "--rooms", str(args.rooms), "--viewers", str(args.viewers), "--drivers", "1",
               "--script", args.script, "--duration", str(args.duration), "--ramp", str(args.ramp), "--json", str(json_path),
               "--room-prefix", prefix, *extra]
    log(" ".join(command))
    load = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    probes = {**{f"node{i}": (lambda pid=s.pid: cpu_seconds(pid)) for i, s in enumerate(servers)},
              "redis": lambda: cpu_seconds(redis.proc.pid) if redis else 0.0,
              "load": lambda: cpu_seconds(load.pid),
              "metrics": lambda: [metrics(s) for s in servers] if redis else []}
    window = MeasuringWindow(probes).follow(load.stderr)
    stdout = load.stdout.read()
    load.wait(timeout=120)
    sys.stderr.write(stdout)
    stderr = "".join(window.lines)
    if load.returncode != 0:
        log(f"{prefix}: scrollcast-load exited {load.returncode}: {stderr.strip().splitlines()[-1:]}")
    report = json.loads(json_path.read_text())
    json_path.unlink(missing_ok=True)
    if not window.complete:
        raise SystemExit(f"cluster: {prefix}: fewer than two progress lines while measuring; stderr:\n{stderr}")
    seconds = window.seconds
    node_cpu = [window.rate(f"node{i}") for i in range(len(servers))]
    broker = None
    if redis:
        def delta(name):
            return sum(counter(b, name) - counter(a, name) for a, b in zip(window.first("metrics"), window.last("metrics")))
        lag_count = delta(BROKER_LAG + "_count")
        # Messages a room publishes per frame period: a frame, or in the inputs stream a batch or beat.
        broker = {"bytes": delta(BROKER_BYTES), "frames": delta(FRAMES_PUBLISHED) + delta(STREAM_PUBLISHED), "seconds": seconds,
                  "lag_mean_ms": 1000 * delta(BROKER_LAG + "_sum") / lag_count if lag_count else float("nan"),
                  "lag_within_5ms": (delta(BROKER_LAG + '_bucket{le="0.005"}') / lag_count) if lag_count else float("nan")}
    return {
        "report": report,
        "exit": load.returncode,
        "node_cpu": node_cpu,
        "server_cpu": sum(node_cpu),
        "redis_cpu": window.rate("redis"),
        "load_cpu": window.rate("load"),
        "broker": broker,
    }


def logged_problems(servers):
    """Warning, error and critical lines the servers logged."""
    lines = []
    for index, server in enumerate(servers):
        server.log_file.flush()
        for line in Path(server.log_file.name).read_text(errors="replace").splitlines():
            if LOG_PROBLEM.match(line):
                lines.append(f"n{index}: {line}")
    return lines


def redis_benchmark(port, payload_bytes, pipeline, subscribers, publishes):
    """PUBLISH rate of redis-benchmark on `port`, with `subscribers` redis-cli clients subscribed
    to the channel (each publish is then delivered that many times)."""
    listeners = [subprocess.Popen(["redis-cli", "-p", str(port), "SUBSCRIBE", "ch"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL) for _ in range(subscribers)]
    try:
        deadline = time.monotonic() + 5
        while int(subprocess.run(["redis-cli", "-p", str(port), "PUBSUB", "NUMSUB", "ch"], capture_output=True,
                                 text=True).stdout.split()[-1]) < subscribers:
            if time.monotonic() > deadline:
                raise SystemExit("cluster: redis-cli subscribers did not subscribe")
            time.sleep(0.05)  # polling the subscriber count above
        command = ["redis-benchmark", "-p", str(port), "-q", "-n", str(publishes), *(["-P", str(pipeline)] if pipeline > 1 else []),
                   "PUBLISH", "ch", "x" * payload_bytes]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        match = re.search(r"([\d.]+) requests per second", done.stdout)
        if not match:
            raise SystemExit(f"cluster: cannot read redis-benchmark's rate: {done.stdout[-300:]!r}")
        return float(match.group(1))
    finally:
        for listener in listeners:
            listener.terminate()
            listener.wait(timeout=10)


def ms(summary, key):
    return summary[key] if summary else float("nan")


def main(argv=None):
    parser = bench_parser("cluster", __doc__)
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--viewers", type=int, default=10, help="viewers per room, its first viewer included")
    parser.add_argument("--duration", type=float, default=20, help="seconds measured")
    parser.add_argument("--ramp", type=float, default=3)
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--script", default="drag")
    parser.add_argument("--publishes", type=int, default=200000, help="redis-benchmark -n")
    parser.add_argument("--stream", choices=("frames", "inputs"), default="frames")
    parser.add_argument("--batch-ms", type=int, default=None,
                        help="inputs stream: every viewer asks for batches this many ms apart (scrollcast-load --batch-ms)")
    args = parser.parse_args(argv)
    stream = ("--stream", "inputs", "--replica") if args.stream == "inputs" else ()
    if args.batch_ms is not None:
        stream += ("--batch-ms", str(args.batch_ms))
    require(args.server, args.load)
    ROOMS, VIEWERS, DURATION, RAMP, NODES, SCRIPT, PUBLISHES = (args.rooms, args.viewers, args.duration, args.ramp,
                                                                 args.nodes, args.script, args.publishes)
    began = time.monotonic()
    info = machine()
    started_at = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")

    single = Server(args.server)
    try:
        a = run_load(args, [single], None, "single", stream)
        a["problems"] = logged_problems([single])
    finally:
        single.stop()

    redis = RedisServer()
    try:
        nodes = [Server(args.server, flags=("--redis", redis.url, "--node-id", f"n{i}")) for i in range(NODES)]
        try:
            b = run_load(args, nodes, redis, "cluster", ("--driver-node", "alternate", *stream))
            b["problems"] = logged_problems(nodes)
        finally:
            for node in nodes:
                node.stop()
        broker = b["broker"]
        bytes_per_frame = broker["bytes"] / broker["frames"] if broker["frames"] else 0.0
        payload = max(1, round(bytes_per_frame))
        subscribers = NODES - 1
        rates = {(pipeline, subs): redis_benchmark(redis.port, payload, pipeline, subs, PUBLISHES)
                 for pipeline in (16, 1) for subs in (0, subscribers)}
    finally:
        redis.close()

    ra, rb = a["report"], b["report"]
    local, remote, overall = rb["latencyLocalMs"], rb["latencyRemoteMs"], ra["latencyMs"]
    difference = ms(remote, "p99") - ms(local, "p99")
    met = difference <= GOAL_MS

    print(f"\nCluster: {ROOMS} rooms × ({VIEWERS} viewers + 1 driver) = {ra['connections']} connections, "
          f"`{SCRIPT}` script, protocol {ra['subprotocol']}, {DURATION:.0f} s measured after a {RAMP:.0f} s ramp; "
          f"{started_at}; {info['cores']} cores ({info['cpu']}), shared with other work (1-minute load average "
          f"{info['loadavg']:.1f} at the start); load generator, nodes and Redis on the same machine; "
          f"release builds; run took {time.monotonic() - began:.0f} s.\n")
    print(f"| | (a) one node, no Redis | (b) {NODES} nodes, one Redis |")
    print("| --- | ---: | ---: |")
    print(f"| frames/s delivered | {ra['framesPerSecond']:.0f} | {rb['framesPerSecond']:.0f} |")
    print(f"| input-to-frame p50 / p99, all drivers (ms) | {ms(overall, 'p50'):.2f} / {ms(overall, 'p99'):.2f} | "
          f"{ms(rb['latencyMs'], 'p50'):.2f} / {ms(rb['latencyMs'], 'p99'):.2f} |")
    print(f"| local drivers p50 / p99 (ms) | – | {ms(local, 'p50'):.2f} / {ms(local, 'p99'):.2f} ({rb['localDrivers']} drivers) |")
    print(f"| remote drivers p50 / p99 (ms) | – | {ms(remote, 'p50'):.2f} / {ms(remote, 'p99'):.2f} ({rb['remoteDrivers']} drivers) |")
    print(f"| fan-out p99 (ms) | {ms(ra['fanoutMs'], 'p99'):.2f} | {ms(rb['fanoutMs'], 'p99'):.2f} |")
    def skipped(r):
        return "–" if r["skippedFrames"] is None else f"{r['skippedFrames']:.0f}"
    print(f"| missed / skipped frames | {ra['missedFrames']} / {skipped(ra)} | {rb['missedFrames']} / {skipped(rb)} |")
    print(f"| server CPU (sum of nodes) | {100 * a['server_cpu']:.0f}% | {100 * b['server_cpu']:.0f}% "
          f"({' + '.join(f'{100 * c:.1f}' for c in b['node_cpu'])}) |")
    print(f"| Redis CPU | – | {100 * b['redis_cpu']:.0f}% |")
    print(f"| load generator CPU | {100 * a['load_cpu']:.0f}% | {100 * b['load_cpu']:.0f}% |")
    print(f"| broker bytes per message (frame, or batch and beat) | – | {bytes_per_frame:.0f} ({broker['bytes']:.0f} B for "
          f"{broker['frames']:.0f} messages published) |")
    print(f"| broker lag, owner's publish → other node's receipt: mean (ms), share ≤ 5 ms | – | "
          f"{broker['lag_mean_ms']:.2f}, {100 * broker['lag_within_5ms']:.1f}% |")
    print(f"| identity checked / mismatches | – | {rb['identityChecked']} / {rb['identityMismatches']} |")
    print(f"| load tool errors | {ra['errors']} | {rb['errors']} |")
    print(f"| node log warnings and errors | {len(a['problems'])} | {len(b['problems'])} |")
    print(f"| scrollcast-load exit status | {a['exit']} | {b['exit']} |")
    if args.stream == "inputs":
        inputs_rows(ra, rb)
        cpu_ratio = b["server_cpu"] / max(a["server_cpu"], 1e-9)
    for reason, count in {**ra["errorReasons"], **rb["errorReasons"]}.items():
        print(f"\nload tool error: {count} × {reason}", end="")
    for example in rb.get("identityMismatchExamples") or []:
        print(f"\nidentity mismatch: {example}", end="")
    for line in (a["problems"] + b["problems"])[:10]:
        print(f"\nnode log: {line}", end="")
    print()

    print(f"\nremote − local p99: {difference:.2f} ms (goal ≤ {GOAL_MS:g} ms: {'met' if met else 'not met'}); "
          f"p99 of (b) all drivers / (a): {ms(rb['latencyMs'], 'p99') / ms(overall, 'p99'):.2f}; "
          f"frames/s (b) / (a): {rb['framesPerSecond'] / max(ra['framesPerSecond'], 1e-9):.3f}")

    print(f"\nRedis pub/sub here (redis-benchmark -n {PUBLISHES} PUBLISH ch <{payload} bytes>, on the run's Redis "
          f"after the nodes stopped; a room's frame is one publish, delivered to each node but the owner that has "
          f"viewers of the room, so {subscribers} subscriber(s) with {NODES} nodes):\n")
    print("| PUBLISH | subscribers | publishes/s | deliveries/s | rooms at 60 frames/s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for (pipeline, subs), rate in rates.items():
        label = f"pipelined (-P {pipeline})" if pipeline > 1 else "unpipelined"
        print(f"| {label} | {subs} | {rate:.0f} | {rate * subs:.0f} | {rate / FPS:.0f} |")
    carried = rates[(16, subscribers)] / FPS
    print(f"\nEstimate: {NODES} nodes (every room watched on all of them) could carry about {carried:.0f} rooms animating "
          f"at {FPS} frames/s on this Redis, pipelined (publishes/s ÷ {FPS}, each publish delivered {subscribers}×: "
          f"{rates[(16, subscribers)] * subscribers:.0f} deliveries/s); {rates[(1, subscribers)] / FPS:.0f} rooms "
          f"if every publish waited for its reply. This run published {broker['frames'] / broker['seconds']:.0f} "
          f"{'batches and beats' if args.stream == 'inputs' else 'frames'}/s for {ROOMS} rooms.")
    if args.stream == "inputs":
        print(f"\nInputs stream: server CPU (b) / (a) {cpu_ratio:.2f} (goal ≤ {CPU_RATIO_GOAL:g}: "
              f"{'met' if cpu_ratio <= CPU_RATIO_GOAL else 'not met'}); remote − local p99 of input-to-batch "
              f"{difference:.2f} ms (goal ≤ {GOAL_MS:g} ms: {'met' if met else 'not met'})")
        print(f"cluster_inputs_remote_minus_local_p99_ms={difference:.2f}")
        print(f"cluster_inputs_cpu_ratio={cpu_ratio:.2f}")
        return
    print(f"cluster_remote_minus_local_p99_ms={difference:.2f}")


def inputs_rows(ra, rb):
    """The inputs stream's rows of the table: what the replicas checked, and input-to-replica."""
    def replica(report):
        r = report["inputs"]["replica"] or {}
        return f"{r.get('beatsChecked', 0)} / {r.get('beatsMatched', 0)} / {r.get('keyframes', 0)}"
    def to_replica(report):
        latency = report["inputs"]["inputToReplicaMs"]
        return f"{ms(latency, 'p50'):.2f} / {ms(latency, 'p99'):.2f}"
    print(f"| replica beats checked / matched / keyframes | {replica(ra)} | {replica(rb)} |")
    print(f"| input-to-replica p50 / p99 (ms) | {to_replica(ra)} | {to_replica(rb)} |")
    print(f"| missed changes | {ra['inputs']['missedChanges']} | {rb['inputs']['missedChanges']} |")


if __name__ == "__main__":
    main()
