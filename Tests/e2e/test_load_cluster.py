"""scrollcast-load against a real cluster (docs/cluster.md): a real Redis and three scrollcast
nodes, `--url A,B,C`. Every room has viewers on all three nodes; the load tool hashes each frame's
bytes per room and seq and compares them across nodes, and splits the drivers' input-to-frame
latency into local (driver on the node that runs the room) and remote (inputs forwarded).

Binaries: $SCROLLCAST_LOAD_BIN (default .build/debug/scrollcast-load) and $SCROLLCAST_BIN.
"""

from __future__ import annotations

import json
import re

import pytest

from test_load_smoke import run_load



@pytest.mark.parametrize("protocol", ["v2", "v1"])
def test_three_nodes_deliver_identical_frames_and_report_local_and_remote_latency(cluster, tmp_path, protocol):
    report_path = tmp_path / "cluster.json"
    urls = [cluster.ws(i) for i in range(3)]
    prefix = f"lc{protocol}"
    result = run_load("--url", ",".join(urls), "--rooms", "4", "--viewers", "3", "--drivers", "1",
                      "--driver-node", "alternate", "--script", "drag", "--duration", "3",
                      "--protocol", protocol, "--room-prefix", prefix, "--json", str(report_path))
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())

    assert report["urls"] == urls and report["url"] == ",".join(urls)
    # Viewer k of room r on node (r + k) mod 3: 3 viewers a room, one on each node; the driver of
    # an even room on the room's first node, of an odd room on another.
    assert report["nodeConnections"] == [5, 5, 6]
    assert report["localDrivers"] == 2 and report["remoteDrivers"] == 2
    assert report["ownerHint"] == "first-node" and report["driverNode"] == "alternate"
    assert report["connectFailures"] == 0 and report["disconnects"] == 0
    # No viewer on any node got a frame out of order (one older than its snapshot included).
    assert not report["errorReasons"], report["errorReasons"]

    # The owner hint held: each room was created on its first node (r mod 3), as Redis says.
    for room in range(4):
        assert cluster.owner_index(f"{prefix}-{room}") == room % 3

    assert report["identityChecked"] > 0, report
    assert report["identityMismatches"] == 0, report["identityMismatchExamples"]
    for key in ("latencyLocalMs", "latencyRemoteMs"):
        latency = report[key]
        assert latency is not None and latency["count"] > 0, (key, latency)
        assert 0 < latency["p50"] <= latency["p99"], (key, latency)
    assert report["latencyLocalMs"]["count"] + report["latencyRemoteMs"]["count"] == report["latencyMs"]["count"]

    assert re.search(r"identity checked / mismatches\s+[1-9]\d* / 0\n", result.stdout), result.stdout
    assert "latency remote p50 / p99" in result.stdout and "latency local p50 / p99" in result.stdout
    # Nothing went wrong on the nodes either (log lines: "DATE LEVEL LABEL: ...").
    for node in cluster.nodes:
        bad = [line for line in node.stderr_lines if re.match(r"\S+ (warning|error|critical) ", line)]
        assert not bad, bad


def test_by_default_every_driver_is_remote(cluster, tmp_path):
    report_path = tmp_path / "remote.json"
    urls = ",".join(cluster.ws(i) for i in range(3))
    result = run_load("--url", urls, "--rooms", "3", "--viewers", "2", "--drivers", "1", "--script", "keys",
                      "--duration", "2", "--room-prefix", "lcremote", "--json", str(report_path))
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["driverNode"] == "other" and report["localDrivers"] == 0 and report["remoteDrivers"] == 3
    assert report["latencyLocalMs"] is None and report["latencyRemoteMs"]["count"] > 0
    assert report["identityMismatches"] == 0 and report["identityChecked"] > 0
    assert not report["errorReasons"], report["errorReasons"]


def test_servers_that_are_not_one_cluster_fail_the_identity_check(server_factory, tmp_path):
    """Two separate servers (no Redis) listed as nodes: each runs its own room of the same name, so
    the same seq carries different bytes; the run fails naming room, seq and nodes. URL 2 is
    server 0 again, so the room's two drivers (on nodes 1 and 2) animate both rooms."""
    a, b = server_factory(), server_factory()
    report_path = tmp_path / "split.json"
    result = run_load("--url", f"{a.ws_url},{b.ws_url},{a.ws_url}", "--rooms", "1", "--viewers", "3",
                      "--drivers", "2", "--script", "drag", "--duration", "2", "--room-prefix", "lcsplit",
                      "--json", str(report_path))
    assert result.returncode != 0
    report = json.loads(report_path.read_text())
    assert report["identityMismatches"] > 0 and report["identityChecked"] > 0
    example = report["identityMismatchExamples"][0]
    match = re.fullmatch(r"room lcsplit-0 seq \d+: node (\d) \((\S+)\) and node (\d) \((\S+)\) delivered different bytes",
                         example)
    assert match, example
    # Whichever connection saw the seq first: one of server a's nodes (0 or 2) against b's (1).
    named = {(int(match.group(1)), match.group(2)), (int(match.group(3)), match.group(4))}
    assert (1, b.ws_url) in named and named & {(0, a.ws_url), (2, a.ws_url)}, example
    assert "identity check failed" in result.stderr and example in result.stderr, result.stderr


def test_one_url_report_has_no_cluster_fields(server_factory, tmp_path):
    """One URL keeps today's report: no cluster fields in the JSON, no cluster rows in the table."""
    server = server_factory()
    report_path = tmp_path / "single.json"
    result = run_load("--url", server.ws_url, "--rooms", "1", "--viewers", "2", "--drivers", "1",
                      "--duration", "1", "--room-prefix", "lcsingle", "--json", str(report_path))
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["url"] == server.ws_url
    assert not {"urls", "identityChecked", "latencyLocalMs", "latencyRemoteMs"} & report.keys()
    assert "identity" not in result.stdout and "node 0" not in result.stdout


def test_a_cluster_run_needs_a_viewer_per_room_to_found_it():
    result = run_load("--url", "ws://127.0.0.1:1/ws,ws://127.0.0.1:2/ws", "--viewers", "0", "--drivers", "1")
    assert result.returncode != 0
    assert "--viewers ≥ 1" in result.stderr, result.stderr
