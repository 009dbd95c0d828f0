"""Server CPU per delivered frame, the figure the ladder's wire and peer comparisons, the isolation
bench and the side-by-side build comparison report: the server's CPU over the load tool's
measured window ÷ the frames all connections received in it."""

from __future__ import annotations


def step_cpu_seconds(step: dict) -> float:
    """A step's server CPU seconds over its report's measured window (bench.load_step.run_step
    samples the CPU rate over the same progress lines the report covers)."""
    return step["server_cpu_percent"] / 100 * step["report"]["measuredSeconds"]


def us_per_frame(cpu_seconds: float, frames: int) -> float | None:
    """CPU microseconds per delivered frame; None when no frame was delivered."""
    return cpu_seconds * 1e6 / frames if frames > 0 else None


def step_us_per_frame(step: dict) -> float | None:
    """A step's server CPU per delivered frame, in µs (None when nothing was delivered)."""
    return us_per_frame(step_cpu_seconds(step), step["report"]["framesReceived"] or 0)
