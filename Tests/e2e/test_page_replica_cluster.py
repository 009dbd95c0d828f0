"""The engine in the page across a cluster (docs/wasm.md, docs/protocol.md "Inputs applied": in a
cluster `applied` messages travel with the room's other reliable messages to every node). A real
Redis and three real nodes; the room runs on n0 (a third page there creates it), the driver's
page is on n1 and a watcher's page on n2, both with the replica on. Through a fling, a wheel
stream and a row move, every server frame either page receives is identical to its replica's,
and the watcher's replica drew the motion from the relayed inputs, not from server frames."""

from __future__ import annotations

import pytest

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, room,
)
from replica_session import assert_no_mismatch, move_a_row, replica, wait_running


@pytest.mark.long(20)
def test_relayed_inputs_drive_the_replicas_of_pages_on_two_other_nodes(browser, cluster, room, artifacts):
    contexts = [browser.new_context() for _ in range(3)]
    owner = ScrollcastPage(artifacts.watch(contexts[0].new_page(), "owner-n0"), cluster.nodes[0].base_url, room).open()
    assert cluster.owner_index(room) == 0
    driver = ScrollcastPage(artifacts.watch(contexts[1].new_page(), "driver-n1"),
                            cluster.nodes[1].base_url, room).open("&replica=on")
    # The watcher compares in version 1 (decoded frames), the driver in version 2 (bytes).
    watcher = ScrollcastPage(artifacts.watch(contexts[2].new_page(), "watcher-n2"),
                             cluster.nodes[2].base_url, room).open("&replica=on&protocol=v1")
    for sc in (driver, watcher):
        wait_running(sc)
    owner.wait("s => s.viewers === 3")
    assert driver.state("s.viewer").startswith("n1/") and watcher.state("s.viewer").startswith("n2/")
    assert watcher.state("s.protocol") == "scrollcast.v1" and driver.state("s.protocol") == "scrollcast.v2"
    before = {label: replica(sc) for sc, label in ((driver, "driver"), (watcher, "watcher"))}

    # A fling from n1: its inputs go to n0, their `applied` messages come back to n1 and n2.
    driver.drag(200, 720, 200, 140, steps=6)
    watcher.wait("s => s.lastFrame.offset > 300")
    for sc in (driver, watcher, owner):
        sc.wait_idle()
    fling_drawn = replica(watcher)["drawn"] - before["watcher"]["drawn"]

    # A wheel stream.
    driver.page.mouse.move(*driver.client_point(200, 400))
    for _ in range(5):
        driver.page.mouse.wheel(0, 120)
    driver.wait_settled()
    watcher.wait_idle()

    # A row move: hold a row until it lifts, carry it down, drop it; n0's `rowMoved` commits it.
    move_a_row(driver, watcher, owner)
    assert driver.state("s.order") == watcher.state("s.order") == owner.state("s.order")
    # The last frame at rest, compared on both.
    seq = owner.state("s.lastReceivedSeq")
    for sc in (driver, watcher):
        sc.wait("(s, q) => s.lastReceivedSeq >= q", seq)

    for sc, label in ((driver, "driver"), (watcher, "watcher")):
        assert_no_mismatch(sc, label)
        r = replica(sc)
        compared = r["compared"] - before[label]["compared"]
        assert compared > 30, (label, r)
        # Never restarted: every frame of the motion was checked against the running replica.
        # A second snapshot or a resume starts it again: the failure says which came.
        why = sc.state("({snapshots: s.snapshots, resumes: s.resumes, reconnects: s.reconnectAttempt})")
        assert r["starts"] == before[label]["starts"] == 1 and r["running"], (label, r["starts"], before[label]["starts"], why)
        print(f"cluster replica {label}: {compared} frames compared, {r['applied']} applied messages, "
              f"{r['drawn']} pictures drawn")
    w = replica(watcher)
    # The watcher sent nothing: everything its replica applied was relayed from n0 through Redis
    # (the drag's pointer inputs, the wheel's, the hold and the drop), and it drew the fling's
    # motion from them.
    assert watcher.state("s.inputsSent") == 0
    assert w["applied"] >= driver.state("s.inputsSent"), (w, driver.state("s.inputsSent"))
    assert w["predicted"] == 0 and fling_drawn > 20, (w, fling_drawn)
    assert replica(driver)["predicted"] == driver.state("s.inputsSent")
    for context in contexts:
        context.close()
