"""bench.frame_cost: server CPU per delivered frame, the figure four reports share."""

from __future__ import annotations

import pytest
import repo_on_path  # noqa: F401

from bench.frame_cost import step_cpu_seconds, step_us_per_frame, us_per_frame
from bench.isolation_cpu import costs
from bench.peer_bench import row


def step(cpu_percent: float, frames: int, seconds: float = 10.0, connections: int = 20, rooms: int = 10) -> dict:
    report = {"framesReceived": frames, "measuredSeconds": seconds, "rooms": rooms, "connections": connections,
              "inputsSent": 0}
    return {"viewers": connections, "server_cpu_percent": cpu_percent, "report": report}


def test_cpu_per_frame_is_the_windows_cpu_over_the_frames_delivered_in_it():
    # 50 % of a core for 10 s is 5 CPU seconds; over 100,000 frames that is 50 µs each.
    assert step_cpu_seconds(step(50, 100_000)) == pytest.approx(5.0)
    assert step_us_per_frame(step(50, 100_000)) == pytest.approx(50.0)
    assert us_per_frame(0.002, 4) == pytest.approx(500.0)


def test_no_frames_delivered_has_no_cost_per_frame_rather_than_a_huge_or_zero_one():
    assert us_per_frame(1.0, 0) is None
    assert step_us_per_frame(step(80, 0)) is None


def test_the_reports_that_quote_it_agree():
    cheap, dear = step(20, 100_000), step(90, 100_000)
    compared = row(cheap, dear)
    assert compared["scrollcast_us"] == pytest.approx(20.0) and compared["peer_us"] == pytest.approx(90.0)
    assert costs(dear).us_per_delivery == pytest.approx(90.0)
    assert costs(step(50, 0)).us_per_delivery == 0.0
