"""The engine in the page across lost connections (docs/wasm.md, "Starting"; docs/protocol.md,
"Resuming" and "Inputs applied"): real Chromium, the real server, the real link emulator between
them (the page's socket goes through it with `?nodes=`). The driver's page flings, its connection
is cut mid-fling and it resumes (`resumed`, not a snapshot): its replica draws server frames until
the room rests, starts again there, and checks the next fling with no mismatch. Then the server
restarts (the room's life ends), the resume is answered with a snapshot, and the replica starts
afresh from it, again with no mismatch."""

from __future__ import annotations

import pytest

from measures_session import FLING
from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, room,
)
from replica_session import assert_no_mismatch, replica, wait_running


def fling_checked(sc: ScrollcastPage, label: str, frames: int = 20):
    """Flings, waits for rest and for the replica to have compared `frames` more frames, all identical."""
    compared = replica(sc)["compared"]
    sc.fling(*FLING)
    sc.wait_idle()
    sc.wait("(s, c) => s.replica.compared > c", compared + frames)
    assert_no_mismatch(sc, label)


@pytest.mark.long(27)
def test_the_replica_starts_again_after_a_resume_mid_fling_and_after_a_snapshot(browser, server_factory, link_proxy,
                                                                                 room, artifacts):
    server = server_factory("--allowed-origins", "*")
    proxy = link_proxy(server.port, "4g")
    page = artifacts.watch(browser.new_context().new_page(), "driver")
    sc = ScrollcastPage(page, server.base_url, room).open(f"&replica=on&nodes=127.0.0.1:{proxy.port}")
    wait_running(sc)
    fling_checked(sc, "before the cut")

    # Cut mid-fling: the page resumes, and the replica (which missed `applied` messages while
    # away) draws server frames until the room rests, then starts from there.
    sc.fling(*FLING)
    starts = replica(sc)["starts"]
    assert proxy.cut() == 1
    sc.wait("s => s.resumes === 1 && s.joined")
    sc.wait_idle()
    sc.wait("(s, n) => s.replica.running && s.replica.starts > n", starts)
    assert sc.state("s.snapshots") == 1, "resumed, not re-snapshotted"
    assert_no_mismatch(sc, "after the resume")
    fling_checked(sc, "after the resume")

    # The server restarts on the same port: the room's life is over, so the resume gets a
    # snapshot of a new room, from which the replica starts afresh.
    starts = replica(sc)["starts"]
    server.stop()
    server.start(server.port)
    sc.wait("s => s.snapshots === 2 && s.joined", timeout=30000)
    sc.wait("(s, n) => s.replica.running && s.replica.starts > n", starts)
    fling_checked(sc, "after the snapshot")
    r = replica(sc)
    print(f"replica across a resume and a snapshot: {r['compared']} frames compared, {r['starts']} starts")
    assert r["enabled"] and r["mismatches"] == 0, r
