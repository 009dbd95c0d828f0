"""System calls and CPU per delivered frame of one server under one `scrollcast-load` step
(bench/where-the-time-goes.md §8 and §10; valgrind cannot run the server here and `perf stat -e
instructions` is not supported, so system calls counted by perf's tracepoints stand in).

Usage: python3 -m bench.syscalls_per_frame [flags] LABEL ROOMS VIEWERS_PER_ROOM WINDOW_S SERVER_COMMAND...
  e.g. ... 100v 10 10 8 .build/release/scrollcast --host 127.0.0.1 --port 0 --public Public --data none
       ... ws100 10 10 8 node bench/peer-broadcaster.js
The server must print `listening on http://HOST:PORT` first. One driver per room plays `drag` in v2.
During WINDOW seconds of the load's measuring phase it runs `perf stat` (task-clock, system calls)
and, unless --no-record, `perf record -e cpu-clock -g` on the server; --poll-trace also records 1 s
of `poll()` calls with their timeouts. Output files go to --out (default /tmp/syscalls-per-frame).
--load: the scrollcast-load binary (default .build/release/scrollcast-load). Needs root or
perf_event_paranoid <= 1 for the tracepoints.
"""
import argparse, json, re, subprocess, sys, time, os

from . import RELEASE, ROOT
from .server import bench_parser

parser = bench_parser("syscalls_per_frame", __doc__, binaries=False)
parser.add_argument("label")
parser.add_argument("rooms", type=int)
parser.add_argument("viewers", type=int, help="viewers per room")
parser.add_argument("window", type=float, help="seconds perf measures")
parser.add_argument("server_cmd", nargs=argparse.REMAINDER, help="the server's command line")
parser.add_argument("--out", default="/tmp/syscalls-per-frame")
parser.add_argument("--load", default=str(RELEASE / "scrollcast-load"))
parser.add_argument("--no-record", action="store_true", help="perf stat only, no perf record")
parser.add_argument("--poll-trace", action="store_true", help="also record 1 s of poll() calls")

def main():
    args = parser.parse_args()
    label, rooms, viewers, window, server_cmd = args.label, args.rooms, args.viewers, args.window, args.server_cmd
    d = args.out
    os.makedirs(d, exist_ok=True)
    LOAD = args.load
    srv = subprocess.Popen(server_cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=open(f"{d}/{label}.srv.err", "w"), text=True,
                           env=dict(os.environ, NODE_PATH="/usr/share/nodejs"))
    while True:
        line = srv.stdout.readline()
        m = re.search(r"listening on http://([^:/\s]+):(\d+)", line)
        if m: break
        if not line: sys.exit("no listen line")
    port = m.group(2)
    load = subprocess.Popen([LOAD, "--url", f"ws://127.0.0.1:{port}/ws", "--rooms", str(rooms), "--viewers", str(viewers),
        "--drivers", "1", "--script", "drag", "--duration", str(window + 3), "--ramp", "3", "--json", f"{d}/{label}.json",
        "--room-prefix", label, "--protocol", "v2"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    ev = "task-clock,raw_syscalls:sys_enter,syscalls:sys_enter_sendto,syscalls:sys_enter_poll,syscalls:sys_enter_ppoll,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_epoll_pwait,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_recvfrom,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_futex,syscalls:sys_enter_writev,syscalls:sys_enter_sendmsg,context-switches"
    started = None
    for line in load.stderr:
        if started is None and "measuring]" in line:
            time.sleep(1)
            stat = subprocess.Popen(["perf", "stat", "-x", ",", "-e", ev, "-p", str(srv.pid), "-o", f"{d}/{label}.stat", "--", "sleep", str(window)])
            rec = None if args.no_record else subprocess.Popen(["perf", "record", "-q", "-F", "499", "-e", "cpu-clock", "-g", "-p", str(srv.pid), "-o", f"{d}/{label}.perf", "--", "sleep", str(window)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            started = time.monotonic()
            if args.poll_trace:
                subprocess.run(["perf", "record", "-q", "-e", "syscalls:sys_enter_poll", "-p", str(srv.pid), "-o", f"{d}/{label}.polls", "--", "sleep", "1"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    load.wait(); stat.wait(); rec and rec.wait()
    srv.terminate(); srv.wait()
    load_average = open('/proc/loadavg').read().split()[0]
    r = json.load(open(f"{d}/{label}.json"))
    fps = r["framesPerSecond"]; frames = fps * window
    print(f"{label}: fps={fps:.0f} missed={r['missedFrames']} p50={(r.get('latencyMs') or {}).get('p50')} p99={(r.get('latencyMs') or {}).get('p99')} load={load_average}")
    summary = {}
    for l in open(f"{d}/{label}.stat"):
        parts = l.strip().split(",")
        if len(parts) > 3 and parts[0] and parts[0][0].isdigit():
            v = float(parts[0]); name = parts[2]
            per = v / frames
            print(f"  {name:40s} {v:14.0f}  per frame {per:.3f}" + ("  (ms -> us/frame %.2f)" % (v*1000/frames) if name=="task-clock" else ""))
            summary[name.split(":")[-1].replace("sys_enter_", "")] = v / frames
    # One line to compare runs by: CPU per delivered frame, all system calls, and the two waits.
    print(f"{label}: us_per_frame={summary.get('task-clock', 0) * 1000:.2f} syscalls_per_frame={summary.get('sys_enter', 0):.3f} "
          f"poll_per_frame={summary.get('poll', 0) + summary.get('ppoll', 0):.4f} "
          f"epoll_wait_per_frame={summary.get('epoll_wait', 0) + summary.get('epoll_pwait', 0):.4f} "
          f"epoll_ctl_per_frame={summary.get('epoll_ctl', 0):.4f} load1={load_average}")


if __name__ == "__main__":
    main()
