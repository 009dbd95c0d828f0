"""bench.inputs_figures: the inputs ladder's figures read badly on bad steps (a mismatched beat, a
keyframe, a missed change, a p99 over one frame, a failed run are not clean), and CPU and bytes
are per connection and second."""

from __future__ import annotations

import pytest
import repo_on_path  # noqa: F401

from bench.inputs_figures import (bytes_per_viewer_second, clean, cpu_us_per_viewer_second, largest_clean, p50_ms,
                                  p99_ms, ratio)


def step(viewers=1000, p99=10.0, missed=0, mismatched=0, keyframes=0, exit=0, inputs=True, cpu=50.0) -> dict:
    report = {"connections": viewers + 10, "measuredSeconds": 10.0, "bytesReceived": 1010 * 10 * 500,
              "connectFailures": 0, "disconnects": 0, "missedFrames": missed, "latencyMs": {"p99": p99},
              "inputs": None}
    if inputs:
        report["inputs"] = {"missedChanges": missed, "inputToReplicaMs": {"p99": p99},
                            "replica": {"beatsChecked": 40, "beatsMismatched": mismatched, "keyframes": keyframes}}
    return {"viewers": viewers, "exit": exit, "server_cpu_percent": cpu, "report": report}


def test_cpu_and_bytes_are_per_connection_and_second():
    # Half a core over 1010 connections is 495 µs of CPU per connection-second.
    assert cpu_us_per_viewer_second(step()) == pytest.approx(0.5e6 / 1010)
    assert bytes_per_viewer_second(step()) == pytest.approx(500)
    assert ratio(5.0, 100.0) == pytest.approx(0.05) and ratio(5.0, None) is None


@pytest.mark.parametrize("bad", [dict(p99=17.0), dict(missed=1), dict(mismatched=1), dict(keyframes=1), dict(exit=1),
                                 dict(p99=None)])
def test_a_bad_step_is_not_clean(bad):
    good = step()
    broken = step(viewers=5000, **bad)
    if "p99" in bad and bad["p99"] is None:
        broken["report"]["inputs"]["inputToReplicaMs"] = None  # nothing measured
    assert clean(good) and not clean(broken)
    assert largest_clean([good, broken]) == 1000


def test_the_frames_stream_reads_its_own_latency_and_missed_frames():
    frames = step(inputs=False, p99=12.0)
    assert p99_ms(frames) == 12.0 and clean(frames)
    assert not clean(step(inputs=False, missed=3))


def test_a_long_batch_periods_step_is_judged_against_its_period_and_reads_its_median():
    long = step(p99=180.0)
    long["report"]["inputs"]["inputToReplicaMs"]["p50"] = 130.0
    assert p50_ms(long) == 130.0
    assert not clean(long), "past one frame period"
    assert clean(long, bound_ms=250 + 1000 / 60), "within the period it asked for"
    assert not clean(step(p99=300.0), bound_ms=250 + 1000 / 60)
