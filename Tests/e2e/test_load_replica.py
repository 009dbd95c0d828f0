"""scrollcast-load --replica against the real server and a real three-node cluster: every
connection joins with "inputs": true, each room's native replica (ScrollReplica, the code the
page's WebAssembly runs) computes the frames from the relayed `applied` inputs, and every frame
each connection receives must equal the replica's byte for byte (docs/benchmarks.md, "Replica
check"). The mixed script plays drags, flings, wheel bursts, scroll keys and row moves.

Binaries: $SCROLLCAST_LOAD_BIN (default .build/debug/scrollcast-load) and $SCROLLCAST_BIN.
"""

from __future__ import annotations

import json
import re

import pytest

from test_load_smoke import run_load


def _assert_replica_held(report: dict, stdout: str) -> None:
    replica = report["replica"]
    assert replica is not None, report
    assert replica["mismatches"] == 0, replica["mismatchExamples"]
    assert replica["compared"] > 0 and replica["identical"] == replica["compared"], replica
    # Every frame is compared or counted as not compared; the window's frames are a part of them.
    assert replica["compared"] + replica["notCompared"] >= report["framesReceived"] > 0, (replica, report["framesReceived"])
    assert report["errors"] == 0, report["errorReasons"]
    assert re.search(r"replica compared / identical / mismatches\s+(\d+) / \1 / 0\n", stdout), stdout


@pytest.mark.parametrize("protocol,link", [("v2", None), ("v1", None), ("v2", "4g")], ids=["v2", "v1", "v2-4g"])
def test_every_frame_equals_the_replicas(server_factory, tmp_path, protocol, link):
    server = server_factory()
    report_path = tmp_path / "replica.json"
    link_args = ("--link", link) if link else ()
    result = run_load("--url", server.ws_url, "--rooms", "2", "--viewers", "3", "--drivers", "1",
                      "--script", "mixed", "--seed", "7", "--duration", "4", "--ramp", "0", "--replica",
                      "--protocol", protocol, "--room-prefix", f"rep{protocol}{link or ''}", *link_args,
                      "--json", str(report_path))
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    _assert_replica_held(report, result.stdout)
    assert report["inputsSent"] > 0 and report["inputsRefused"] == 0
    assert (report["link"] is not None) == bool(link)


def test_every_node_relays_the_inputs_its_replica_needs(cluster, tmp_path):
    """Each node's viewers are checked against a replica fed by that node's relayed inputs. The
    viewers after the founder join while the driver plays, so their replicas start at a later
    frame at rest. (Before the roster kept a viewer's 'inputs' wish, a node's replica here lost
    inputs and diverged in most runs.)"""
    report_path = tmp_path / "replica-cluster.json"
    urls = [cluster.ws(i) for i in range(3)]
    result = run_load("--url", ",".join(urls), "--rooms", "3", "--viewers", "3", "--drivers", "1",
                      "--driver-node", "alternate", "--script", "mixed", "--seed", "3", "--duration", "4",
                      "--replica", "--room-prefix", "repcl", "--json", str(report_path))
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    _assert_replica_held(report, result.stdout)
    assert report["identityMismatches"] == 0, report["identityMismatchExamples"]


def test_without_the_flag_there_is_no_replica_check(server_factory, tmp_path):
    server = server_factory()
    report_path = tmp_path / "plain.json"
    result = run_load("--url", server.ws_url, "--rooms", "1", "--viewers", "1", "--drivers", "1",
                      "--script", "wheel", "--duration", "1", "--ramp", "0", "--json", str(report_path))
    assert result.returncode == 0, result.stderr
    assert json.loads(report_path.read_text())["replica"] is None
    assert "replica compared" not in result.stdout
