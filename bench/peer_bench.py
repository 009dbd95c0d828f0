"""The peer comparison in `make bench`: Scrollcast against a plain Node `ws` broadcaster.

At each viewer count of `--peer-steps` the ladder runs the same `scrollcast-load` step (same rooms,
viewers, drivers, script, duration, protocol v2) against Scrollcast and, right after it, against
bench/peer-broadcaster.js on Debian's nodejs and node-ws. Each server's CPU over the measurement
window is divided by the frames the load generator received in it: server CPU per delivered
frame (bench/frame_cost.py). The ratio Scrollcast ÷ peer is the figure to beat (≤ 1.0). Both runs of a step are back to
back in one run of the script: on a shared machine only that comparison means anything.

The steps (`--peer-steps`), the node binary (`--node`) and where Debian's node-ws put `ws`
(`--peer-node-path`) are the ladder's flags (`python3 -m bench.ladder --help`).
"""
import os
import shutil
from pathlib import Path

from . import ROOT
from .frame_cost import step_us_per_frame
from .server import Server

SCRIPT = ROOT / "bench" / "peer-broadcaster.js"
HEADLINE_VIEWERS = 1000


def missing(node: str, node_path: Path):
    """Why the peer cannot run here (None when it can): node or Debian's ws is not installed."""
    if shutil.which(node) is None:
        return f"`{node}` not found (make deps installs nodejs)"
    if not (Path(node_path) / "ws" / "package.json").exists():
        return f"no `ws` module in {node_path} (make deps installs node-ws)"
    return None


def start(node: str, node_path: Path) -> Server:
    """The broadcaster, started like the ladder's server (it prints the same `listening on` line)."""
    return Server(None, command=[node, str(SCRIPT)], env=dict(os.environ, NODE_PATH=str(node_path)))


def ratio(row):
    ours, theirs = row["scrollcast_us"], row["peer_us"]
    return ours / theirs if ours is not None and theirs else None


def row(scrollcast_step, peer_step):
    return {"viewers": scrollcast_step["viewers"], "scrollcast": scrollcast_step, "peer": peer_step,
            "scrollcast_us": step_us_per_frame(scrollcast_step), "peer_us": step_us_per_frame(peer_step)}


def _fmt(value, digits=1):
    return "–" if value is None else f"{value:.{digits}f}"


def section(rows, skipped_because=None):
    """The report's peer section, as lines."""
    lines = ["## Peer: a plain `ws` broadcaster", ""]
    if skipped_because:
        return lines + [f"Not run: {skipped_because}.", ""]
    if not rows:
        return []
    lines += [
        "The same `scrollcast-load` step against Scrollcast and, right after it in the same run, against "
        "`bench/peer-broadcaster.js`: Node 20 with Debian's `node-ws` 8.11, permessage-deflate off, one timer for "
        "all rooms, every member of a room sent the same ~110-byte binary v2 frame 60 times a second with "
        "`ws.send`. It answers `join` with a valid v2 snapshot of a fixed scene and names a driver's latest input "
        "in the room's next frame, so the load generator measures both the same way. Server CPU per delivered "
        "frame = the server process's CPU time over the measurement window ÷ frames received in it (Scrollcast "
        "also takes input and computes every frame with its engine; the peer makes frames up). Ratio = "
        "Scrollcast ÷ peer: at most 1.0 means Scrollcast delivers a frame for no more CPU.",
        "",
        "| viewers | Scrollcast frames/s | Scrollcast CPU | Scrollcast µs/frame | Scrollcast p99 (ms) | Scrollcast missed "
        "| `ws` frames/s | `ws` CPU | `ws` µs/frame | `ws` p99 (ms) | `ws` missed | ratio |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        s, p = r["scrollcast"], r["peer"]
        lines.append(
            f"| {r['viewers']} | {s['report']['framesPerSecond']:.0f} | {s['server_cpu_percent']:.0f}% | {_fmt(r['scrollcast_us'])} "
            f"| {_fmt((s['report'].get('latencyMs') or {}).get('p99'))} | {s['report']['missedFrames']} "
            f"| {p['report']['framesPerSecond']:.0f} | {p['server_cpu_percent']:.0f}% | {_fmt(r['peer_us'])} "
            f"| {_fmt((p['report'].get('latencyMs') or {}).get('p99'))} | {p['report']['missedFrames']} "
            f"| **{_fmt(ratio(r), 2)}** |")
    lines.append("")
    return lines


def lines(rows):
    """name=value lines, the headline (ratio at 1000 viewers) last."""
    out = [f"peer_step_{r['viewers']}: scrollcast_us_per_frame={_fmt(r['scrollcast_us'])} "
           f"peer_us_per_frame={_fmt(r['peer_us'])} ratio={_fmt(ratio(r), 2)}" for r in rows]
    return out + [headline(rows)]


def headline(rows):
    at = [r for r in rows if r["viewers"] == HEADLINE_VIEWERS]
    value = ratio(at[0]) if at else None
    return f"peer_cpu_ratio_{HEADLINE_VIEWERS}={_fmt(value, 2) if value is not None else 'none'}"
