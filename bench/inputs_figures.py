"""The inputs ladder's figures (bench/inputs_ladder.py): pure functions of measured steps (the dicts
bench.load_step.run_step returns), shared by its report and tested in Tests/bench."""

from __future__ import annotations

from .ladder_settings import ONE_FRAME_MS


def joined(step: dict) -> int:
    """Connections that joined (the peak at once): a step whose handshakes timed out serves fewer
    than it planned, and its figures are per connection served."""
    r = step["report"]
    return r.get("peakConnected") or r["connections"]


def cpu_us_per_viewer_second(step: dict) -> float | None:
    """Server CPU per connection and second of the window, in µs: the CPU rate (cores) over the
    connections joined (every connection receives; drivers count as viewers here)."""
    connections = joined(step)
    return step["server_cpu_percent"] / 100 * 1e6 / connections if connections else None


def bytes_per_viewer_second(step: dict) -> float | None:
    """Bytes every connection joined received per second of the window (every message, as the load tool counts)."""
    r = step["report"]
    seconds = r["measuredSeconds"] * joined(step)
    return r["bytesReceived"] / seconds if seconds > 0 else None


def latency_ms(step: dict, quantile: str = "p99") -> float | None:
    """The step's latency figure: input-to-replica at the watchers in the inputs stream,
    input-to-frame at the drivers in the frames stream."""
    r = step["report"]
    latency = (r["inputs"] or {}).get("inputToReplicaMs") if r.get("inputs") else r.get("latencyMs")
    return latency[quantile] if latency else None


def p99_ms(step: dict) -> float | None:
    return latency_ms(step, "p99")


def p50_ms(step: dict) -> float | None:
    return latency_ms(step, "p50")


def missed(step: dict) -> int:
    """Changes missing from a viewer's batches (inputs) or frames missed while it kept up (frames)."""
    r = step["report"]
    return r["inputs"]["missedChanges"] if r.get("inputs") else r["missedFrames"]


def beats(step: dict) -> dict:
    """The replica's beats: checked, mismatched and keyframes (zeros in the frames stream)."""
    replica = (step["report"].get("inputs") or {}).get("replica") or {}
    return {"checked": replica.get("beatsChecked", 0), "mismatched": replica.get("beatsMismatched", 0),
            "keyframes": replica.get("keyframes", 0)}


def clean(step: dict, bound_ms: float = ONE_FRAME_MS) -> bool:
    """p99 under `bound_ms` (one frame period; a long batch period's step is judged against that
    period plus one frame, what its batches add by design), nothing missed, every connection held,
    the load tool's own verdict good (in the inputs stream that includes every beat matched, no
    keyframe)."""
    r = step["report"]
    p99 = p99_ms(step)
    held = r["connectFailures"] == 0 and r["disconnects"] == 0
    b = beats(step)
    return (step["exit"] == 0 and held and p99 is not None and p99 < bound_ms and missed(step) == 0
            and b["mismatched"] == 0 and b["keyframes"] == 0)


def largest_clean(steps: list[dict], bound_ms: float = ONE_FRAME_MS) -> int:
    """The largest viewer count whose step was clean (p99 under `bound_ms`), 0 when none was."""
    return max((s["viewers"] for s in steps if clean(s, bound_ms)), default=0)


def ratio(inputs_value: float | None, frames_value: float | None) -> float | None:
    return inputs_value / frames_value if inputs_value is not None and frames_value else None
