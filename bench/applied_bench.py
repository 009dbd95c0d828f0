"""Issue 21's load, side by side: `scrollcast-load --replica` (every connection joins with
"inputs": true) against several server builds in turn, in one run (bench/where-the-time-goes.md
§9). For each: the drivers' input-to-frame p50/p99, missed frames, frames delivered, and the
server's CPU per delivered frame (utime + stime from /proc over the load's measuring window);
the 1-minute load average next to each.

Usage: python3 bench/applied_bench.py LABEL=SERVER_BINARY [LABEL=SERVER_BINARY ...]
  env: ROOMS (10), VIEWERS (99), DRIVERS (1), DURATION (10), RAMP (5), SCRIPT (mixed),
       PROTOCOL (v2), ROUNDS (1: each build once per round, builds alternating), REPLICA (1),
       LOADBIN (.build/release/scrollcast-load). A LABEL ending in "+now" runs its server with
       SCROLLCAST_WRITE_AT_ONCE=1.
"""
import json, os, re, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
env = os.environ.get
LOAD = env("LOADBIN", str(ROOT / ".build" / "release" / "scrollcast-load"))
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def run(label: str, binary: str, out: Path) -> dict:
    server_env = dict(os.environ)
    if label.endswith("+now"):
        server_env["SCROLLCAST_WRITE_AT_ONCE"] = "1"
    srv = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0", "--public", str(ROOT / "Public"), "--data", "none"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=server_env)
    port = None
    while port is None:
        line = srv.stdout.readline()
        if not line:
            sys.exit(f"{label}: no listen line")
        m = re.search(r"listening on http://[^:/\s]+:(\d+)", line)
        port = m and m.group(1)
    report = out / f"{label}.json"
    args = [LOAD, "--url", f"ws://127.0.0.1:{port}/ws", "--rooms", env("ROOMS", "10"), "--viewers", env("VIEWERS", "99"),
            "--drivers", env("DRIVERS", "1"), "--script", env("SCRIPT", "mixed"), "--seed", "11",
            "--duration", env("DURATION", "10"), "--ramp", env("RAMP", "5"), "--protocol", env("PROTOCOL", "v2"),
            "--room-prefix", label.replace("+", "p"), "--json", str(report)]
    if env("REPLICA", "1") == "1":
        args.append("--replica")
    load = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    start_cpu = start_time = None
    load_avg = []
    end_cpu = end_time = None
    for line in load.stderr:
        if start_cpu is None and "measuring]" in line:
            start_cpu, start_time = cpu_seconds(srv.pid), time.monotonic()
            load_avg.append(open("/proc/loadavg").read().split()[0])
        elif start_cpu is not None and end_cpu is None and "closing]" in line:
            end_cpu, end_time = cpu_seconds(srv.pid), time.monotonic()
            load_avg.append(open("/proc/loadavg").read().split()[0])
    if end_cpu is None:
        end_cpu, end_time = cpu_seconds(srv.pid), time.monotonic()
        load_avg.append(open("/proc/loadavg").read().split()[0])
    load.wait()
    srv.terminate()
    srv.wait()
    r = json.load(open(report))
    frames = r["framesPerSecond"] * float(env("DURATION", "10"))
    latency = r.get("latencyMs") or {}
    return {"label": label, "fps": r["framesPerSecond"], "missed": r["missedFrames"], "p50": latency.get("p50"),
            "p99": latency.get("p99"), "cpu_s": end_cpu - start_cpu, "window_s": end_time - start_time,
            "us_per_frame": (end_cpu - start_cpu) * 1e6 / frames if frames else None,
            "replica": (r.get("replica") or {}).get("mismatches"), "load": "→".join(load_avg)}


def main():
    builds = [a.split("=", 1) for a in sys.argv[1:]]
    out = Path(tempfile.mkdtemp(prefix="applied-bench-"))
    print(f"| round | build | frames/s | missed | p50 / p99 (ms) | server CPU (s) | µs CPU / frame | replica mismatches | load avg |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for round_ in range(int(env("ROUNDS", "1"))):
        for label, binary in builds:
            x = run(label, binary, out)
            print(f"| {round_ + 1} | {label} | {x['fps']:.0f} | {x['missed']} | {x['p50']} / {x['p99']} | {x['cpu_s']:.2f} "
                  f"| {x['us_per_frame']:.1f} | {x['replica']} | {x['load']} |", flush=True)


if __name__ == "__main__":
    main()
