"""The inputs stream in a cluster (docs/cluster.md, "The inputs stream across nodes"): a real Redis
and three real nodes. Remote viewers of the inputs stream get the owner's batches and hashed beats
through Redis, never a frame: `scrollcast-load --stream inputs --replica --url A,B,C` runs a
native replica per room and node and checks every beat; no node publishes or relays a frame. A
raw v1 client on a follower asks for a keyframe (the owner answers and counts it) and, when the
owner is SIGKILLed, gets a fresh snapshot with the engine's state from the new owner, then beats
and batches again."""

from __future__ import annotations

import json

import pytest

from server_helpers import ClientClock, Viewer, drag, metric, run
from test_load_smoke import run_load

ENGINE = 1  # EngineVersion.current (Sources/ScrollEngine/EngineVersion.swift)
FRAMES_PUBLISHED = "scrollcast_cluster_frames_published_total"
FRAMES_RELAYED = "scrollcast_cluster_frames_relayed_total"
STREAM_PUBLISHED = "scrollcast_cluster_stream_messages_published_total"


@pytest.mark.parametrize("protocol", ["v2", "v1"])
def test_remote_inputs_viewers_match_every_beat_and_no_frame_crosses_redis(cluster, tmp_path, protocol):
    report_path = tmp_path / "inputs.json"
    urls = [cluster.ws(i) for i in range(3)]
    prefix = f"ci{protocol}"
    result = run_load("--url", ",".join(urls), "--stream", "inputs", "--replica", "--rooms", "3", "--viewers", "3",
                      "--drivers", "1", "--driver-node", "alternate", "--script", "mixed", "--seed", "5",
                      "--duration", "3", "--ramp", "0", "--protocol", protocol, "--room-prefix", prefix,
                      "--json", str(report_path))
    assert report_path.exists(), result.stderr
    report = json.loads(report_path.read_text())
    assert result.returncode == 0, result.stderr
    # Viewer k of room r on node (r + k) mod 3: every room is watched from all three nodes.
    assert sum(report["nodeConnections"]) == 12 and min(report["nodeConnections"]) > 0, report["nodeConnections"]
    assert report["localDrivers"] >= 1 and report["remoteDrivers"] >= 1
    assert report["framesReceived"] == 0 and report["errors"] == 0, report["errorReasons"]
    inputs = report["inputs"]
    assert inputs["batches"] > 0 and inputs["changes"] > 0 and inputs["missedChanges"] == 0, inputs
    replica = inputs["replica"]
    assert replica["starts"] == 9, "one replica per room and node, started once from its snapshot's state"
    assert replica["beatsChecked"] > 0 and replica["beatsMatched"] == replica["beatsChecked"], replica
    assert replica["beatsMismatched"] == 0 and replica["keyframes"] == 0 and replica["fallbacks"] == 0, replica
    for room in range(3):
        assert cluster.owner_index(f"{prefix}-{room}") == room % 3
    # Nothing but inputs and beats crossed Redis: no node published or relayed a frame.
    assert [metric(node, FRAMES_PUBLISHED) for node in cluster.nodes] == [0, 0, 0]
    assert [metric(node, FRAMES_RELAYED) for node in cluster.nodes] == [0, 0, 0]
    assert all(metric(node, STREAM_PUBLISHED) > 0 for node in cluster.nodes), "each node owns a room and published"
    # Batches and beats are timed across the broker as frames are.
    assert sum(metric(node, "scrollcast_cluster_broker_lag_seconds_count") for node in cluster.nodes) > 0
    # Input-to-batch splits by where the driver is: on the room's node, or forwarded to it.
    for key in ("latencyLocalMs", "latencyRemoteMs"):
        assert report[key] is not None and report[key]["count"] > 0, (key, report[key])
    print(f"cluster inputs {protocol}: {replica['beatsChecked']} beats checked, all matched; "
          f"input-to-replica p99 {inputs['inputToReplicaMs']['p99']:.1f} ms")


def test_a_follower_serves_keyframes_and_a_fresh_state_after_a_takeover(cluster, room_name):
    async def scenario():
        driver = await Viewer.join(cluster.ws(0), room_name)
        await driver.wait_type("snapshot")
        assert cluster.lease(room_name)[0] == "n0"
        watchers = [await Viewer.join(cluster.ws(i), room_name, stream="inputs", engine=ENGINE) for i in (1, 2)]
        for watcher in watchers:
            _, _, snapshot = await watcher.wait_type("snapshot")
            assert snapshot["replica"]["engine"] == ENGINE and snapshot["replica"]["changes"] == 0
        clock = ClientClock()
        last = await drag(driver, clock, x=200, y0=700, y1=300, steps=6)
        for watcher in watchers:
            await watcher.wait_type("batch", where=lambda b: b["changes"] >= last)
            await watcher.wait_type("beat", where=lambda b: b.get("hash") is not None)

        # A keyframe asked on n1 is answered by n0, which counts it.
        before = metric(cluster.nodes[0], "scrollcast_keyframes_total")
        mark = len(watchers[0].received)
        await watchers[0].send({"type": "keyframe"})
        _, _, fresh = await watchers[0].wait_type("snapshot", start=mark)
        assert fresh["replica"]["changes"] >= last and watchers[0].close_code is None
        assert metric(cluster.nodes[0], "scrollcast_keyframes_total") == before + 1

        # The owner dies: each watcher gets the room's state from the new owner, then its stream.
        await cluster.until_redis_settled()
        marks = [len(w.received) for w in watchers]
        cluster.nodes[0].proc.kill()
        new_owner, _ = await cluster.until_owner(room_name, lambda lease: lease[0] != "n0", timeout=5.0)
        mover = watchers[int(new_owner[1:]) - 1]
        for watcher, start in zip(watchers, marks):
            _, _, again = await watcher.wait_type("snapshot", start=start, timeout=5)
            assert again["replica"] is not None, "a fresh state for the replica, not a frames snapshot"
        start = [len(w.received) for w in watchers]
        after = await drag(mover, ClientClock(start=60_000.0), x=200, y0=700, y1=400, steps=6)
        for watcher, begin in zip(watchers, start):
            await watcher.wait_type("batch", start=begin)
            await watcher.wait_type("beat", start=begin, where=lambda b: b.get("hash") is not None)
        assert after > 0
        for watcher in watchers:
            assert "frame" not in watcher.types(), "an inputs-stream viewer got a frame"
            assert watcher.close_code is None
            await watcher.close()
        await driver.close()

    run(scenario())
