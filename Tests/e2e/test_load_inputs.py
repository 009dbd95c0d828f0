"""scrollcast-load --stream inputs against the real server (the session's): every connection joins
the inputs stream, each room's native replica (ScrollReplica, restored from the snapshot's state
bytes) applies every batch and must match the hash of every beat, with no keyframe; and the
figures read badly on known-bad runs: a replica that leaves out a change mismatches and asks
keyframes (the server counts them too), viewers that ignore batches count missed changes, and a
4g link puts input-to-replica past its two one-way delays. Bad flag combinations get a clear CLI
error (docs/benchmarks.md, "Inputs stream").

Binaries: $SCROLLCAST_LOAD_BIN (default .build/debug/scrollcast-load) and $SCROLLCAST_BIN.
"""

from __future__ import annotations

import json
import re
import sys
import time
import uuid

import pytest

from server_helpers import REPO, metric
from test_load_smoke import run_load

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # the bench package, as `python3 -m bench.…` runs it
from bench.inputs_figures import bytes_per_viewer_second  # noqa: E402  (the inputs ladder's own figure)

FOUR_G_ONE_WAY_MS = 40  # LinkProfile.fourG's delay (Sources/LinkEmulator/LinkProfile.swift)


def _run(server, tmp_path, *extra: str, rooms: int = 2, duration: str = "3"):
    report_path = tmp_path / f"inputs-{uuid.uuid4().hex[:6]}.json"
    result = run_load("--url", server.ws_url, "--rooms", str(rooms), "--viewers", "3", "--drivers", "1",
                      "--duration", duration, "--ramp", "0", "--stream", "inputs",
                      "--room-prefix", f"ldin{uuid.uuid4().hex[:8]}", "--json", str(report_path), *extra)
    assert report_path.exists(), result.stderr
    return result, json.loads(report_path.read_text())


@pytest.mark.parametrize("protocol", ["v2", "v1"])
def test_every_beat_matches_the_replica_with_no_keyframe(scrollcast_server, tmp_path, protocol):
    result, report = _run(scrollcast_server, tmp_path, "--replica", "--script", "mixed", "--seed", "5",
                          "--protocol", protocol)
    assert result.returncode == 0, result.stderr
    assert report["stream"] == "inputs" and report["framesReceived"] == 0, "no frame in the inputs stream"
    assert report["errors"] == 0 and report["disconnects"] == 0, report["errorReasons"]
    inputs = report["inputs"]
    assert inputs["batches"] > 0 and inputs["beats"] > 0 and inputs["changes"] > 0, inputs
    assert inputs["missedChanges"] == 0
    latency = inputs["inputToReplicaMs"]
    assert latency is not None and latency["count"] > 0 and 0 < latency["p50"] <= latency["p99"], latency
    replica = inputs["replica"]
    assert replica["beatsChecked"] > 0 and replica["beatsMatched"] == replica["beatsChecked"], replica
    assert replica["beatsMismatched"] == 0 and replica["keyframes"] == 0 and replica["fallbacks"] == 0, replica
    assert replica["starts"] == 2, "one replica per room, started once from its snapshot's state"
    assert re.search(r"replica beats checked / matched / mismatched\s+(\d+) / \1 / 0\n", result.stdout), result.stdout


def test_a_replica_that_leaves_out_a_change_mismatches_and_asks_keyframes(scrollcast_server, tmp_path):
    keyframes_before = metric(scrollcast_server, "scrollcast_keyframes_total")
    fallbacks_before = metric(scrollcast_server, "scrollcast_inputs_stream_fallbacks_total")
    result, report = _run(scrollcast_server, tmp_path, "--replica", "--script", "fling", "--seed", "2",
                          "--test-fault", "replica-drops-change", rooms=1)
    assert result.returncode != 0
    assert "replica check failed" in result.stderr, result.stderr
    replica = report["inputs"]["replica"]
    assert replica["beatsMismatched"] > 0 and replica["keyframes"] > 0, replica
    assert replica["keyframes"] == replica["beatsMismatched"], "one keyframe asked per mismatch"
    # The server counted each: a keyframe, or from the third within a minute the move to frames.
    def answered():
        return (metric(scrollcast_server, "scrollcast_keyframes_total") - keyframes_before
                + metric(scrollcast_server, "scrollcast_inputs_stream_fallbacks_total") - fallbacks_before)
    deadline = time.monotonic() + 5
    while answered() < replica["keyframes"] and time.monotonic() < deadline:
        time.sleep(0.05)  # polls the server's counters, which it updates on its room thread
    assert answered() == replica["keyframes"], (answered(), replica)
    assert replica["starts"] >= 2, "a keyframe's state restarted the replica"


def test_viewers_that_ignore_batches_count_missed_changes(scrollcast_server, tmp_path):
    result, report = _run(scrollcast_server, tmp_path, "--script", "drag", "--test-fault", "viewers-drop-batch",
                          rooms=1)
    assert result.returncode != 0
    assert report["inputs"]["missedChanges"] > 0, report["inputs"]
    assert "changes missing from the viewers' batches" in result.stderr, result.stderr


def test_the_bench_reads_more_bytes_per_viewer_second_for_unrounded_inputs(scrollcast_server, tmp_path):
    """Known bad for the inputs ladder's bytes (bench/inputs_figures.py): the same drags with
    points as 15-digit doubles (9 bytes each in a batch) instead of 0.01 pt as the page sends
    them (1–3 bytes) read higher."""
    runs = {}
    for fault in ((), ("--test-fault", "unrounded-inputs")):
        result, report = _run(scrollcast_server, tmp_path, "--replica", "--script", "drag", "--seed", "3", *fault, rooms=1)
        assert result.returncode == 0, result.stderr
        assert report["inputs"]["replica"]["beatsMismatched"] == 0 and report["inputs"]["changes"] > 0, report["inputs"]
        runs[bool(fault)] = bytes_per_viewer_second({"report": report})
    assert runs[True] > 1.2 * runs[False], runs


def test_input_to_replica_reads_the_links_delay(scrollcast_server, tmp_path):
    direct_result, direct = _run(scrollcast_server, tmp_path, "--script", "drag", rooms=1)
    slow_result, slow = _run(scrollcast_server, tmp_path, "--script", "drag", "--link", "4g", rooms=1)
    assert direct_result.returncode == 0, direct_result.stderr
    assert slow_result.returncode == 0, slow_result.stderr
    direct_ms, slow_ms = direct["inputs"]["inputToReplicaMs"], slow["inputs"]["inputToReplicaMs"]
    # Driver → server and server → viewer each cross the link once.
    assert slow_ms["p50"] >= 2 * FOUR_G_ONE_WAY_MS, slow_ms
    assert direct_ms["p50"] < slow_ms["p50"], (direct_ms, slow_ms)


@pytest.mark.parametrize("args,message", [
    (("--viewers", "0"), "--stream inputs needs --viewers ≥ 1"),
])
def test_bad_combinations_are_refused_with_a_clear_error(args, message):
    result = run_load("--stream", "inputs", *args)
    assert result.returncode != 0 and message in result.stderr, result.stderr


@pytest.mark.parametrize("args,message", [
    (("--test-fault", "viewers-drop-batch"), "--test-fault needs --stream inputs"),
    (("--stream", "inputs", "--test-fault", "replica-drops-change"), "replica-drops-change needs --replica"),
    (("--stream", "pictures"), "frames|inputs"),
])
def test_test_faults_and_streams_are_checked(args, message):
    result = run_load(*args)
    assert result.returncode != 0 and message in result.stderr, result.stderr


def test_a_long_batch_period_raises_input_to_replica_by_about_half_of_it(scrollcast_server, tmp_path):
    default_result, default = _run(scrollcast_server, tmp_path, "--replica", "--script", "drag", rooms=1)
    long_result, long = _run(scrollcast_server, tmp_path, "--replica", "--script", "drag", "--batch-ms", "250", rooms=1)
    assert default_result.returncode == 0, default_result.stderr
    assert long_result.returncode == 0, long_result.stderr
    replica = long["inputs"]["replica"]
    assert replica["beatsMatched"] == replica["beatsChecked"] > 0 and replica["keyframes"] == 0, replica
    short_ms, long_ms = default["inputs"]["inputToReplicaMs"], long["inputs"]["inputToReplicaMs"]
    # A change waits up to a period for its batch (a beat, every 250 ms, takes it sooner): about
    # half the period on average; the default waits at most one frame period. Never more than the
    # period: a fresh-clone CI run at load 6-11 read +219 ms (long p50 229, p90 341: the debug
    # server's timers late), past the three quarters this bound once was. How often batches go
    # is bounded by their count, below.
    assert 0.25 * 250 <= long_ms["p50"] - short_ms["p50"] < 250, (short_ms, long_ms)
    assert long["inputs"]["batches"] < default["inputs"]["batches"] / 3, (long["inputs"], default["inputs"])


@pytest.mark.parametrize("args,message", [
    (("--batch-ms", "250"), "--batch-ms needs --stream inputs"),
    (("--stream", "inputs", "--batch-ms", "0"), "--batch-ms must be in 1…1000; got 0"),
])
def test_a_bad_batch_period_is_refused_with_a_clear_error(args, message):
    result = run_load(*args)
    assert result.returncode != 0 and message in result.stderr, result.stderr


class _Peer:
    """bench/peer-broadcaster.js with its inputs relay (bench/peer-inputs.js), as `make bench-inputs`
    runs it (Debian's nodejs and node-ws, which `make test` installs)."""

    def __init__(self):
        from bench import peer_bench
        self.server = peer_bench.start("node", "/usr/share/nodejs")
        self.ws_url = f"ws://127.0.0.1:{self.server.port}/ws"


def test_the_ws_relay_the_inputs_ladder_compares_with_speaks_the_inputs_stream(tmp_path):
    """The `ws` relay's batches are read as Scrollcast's are (the ladder's peer rows were
    unreadable once the batch was written short: every change missed, no input reached a viewer)."""
    peer = _Peer()
    try:
        result, report = _run(peer, tmp_path, "--script", "fling", "--seed", "3")
    finally:
        peer.server.stop()
    inputs = report["inputs"]
    assert result.returncode == 0, result.stderr[-600:]
    assert inputs["changes"] > 0 and inputs["missedChanges"] == 0, inputs
    assert inputs["inputToReplicaMs"]["count"] > 0, inputs
