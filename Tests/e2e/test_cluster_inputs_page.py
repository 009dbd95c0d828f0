"""Pages in the inputs stream across a cluster (docs/cluster.md, "The inputs stream across nodes"):
a real Redis, three real nodes and real Chromium. The room runs on n0, where a frames page
created it; a driver's page on n1 and a watcher's on n2 take `?stream=inputs`: both replicate
from the owner's state and its batches relayed through Redis, receive no frame, match every beat
through a fling, a wheel burst and a row move, and draw the frames page's picture; the watcher's
picture is judged right throughout."""

from __future__ import annotations

import pytest

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, room,
)
from replica_session import replica
from server_helpers import metric
from test_page_inputs_stream import INPUTS, assert_same_picture, counted_page, play_and_check, received, wait_streaming


@pytest.mark.long(22)
def test_pages_on_followers_replicate_from_relayed_batches_and_match_every_beat(browser, cluster, room, artifacts):
    frames = counted_page(browser, cluster.nodes[0].base_url, room, artifacts, "frames-n0", "")
    assert cluster.owner_index(room) == 0
    driver = counted_page(browser, cluster.nodes[1].base_url, room, artifacts, "driver-n1", INPUTS)
    watcher = counted_page(browser, cluster.nodes[2].base_url, room, artifacts, "watcher-n2", INPUTS)
    for sc in (driver, watcher):
        wait_streaming(sc)
    assert driver.state("s.viewer").startswith("n1/") and watcher.state("s.viewer").startswith("n2/")

    play_and_check(driver, watcher, frames)
    assert_same_picture(watcher, frames)
    assert_same_picture(driver, frames)
    # The owner's only remote viewers take inputs: it published no frame for them.
    assert metric(cluster.nodes[0], "scrollcast_cluster_frames_published_total") == 0
    assert metric(cluster.nodes[0], "scrollcast_cluster_stream_messages_published_total") > 0
    watcher.wait("s => s.measures && s.measures.wrong.judged > 50")
    wrong = watcher.state("s.measures.wrong")
    assert wrong["wrong"] == 0, wrong
    m, r = watcher.state("s.measures"), replica(watcher)
    print(f"cluster page watcher: wrong {m['wrong']['wrong']}/{m['wrong']['judged']}, "
          f"beats {r['beatsMatched']}/{r['beatsChecked']}, batches {r['batches']}, received {received(watcher)}")
