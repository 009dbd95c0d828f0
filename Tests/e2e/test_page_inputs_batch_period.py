"""The page's batch period in the inputs stream (docs/protocol.md "The inputs stream", `batchMs`;
docs/wasm.md "The batch period"), in real Chromium against the real server. Without `?batch=` the
page asks for 250 ms batches (`PAGE_BATCH_MS` in replica/stream.js): the fling's moves come several
to a batch, yet the driver and a watcher match every beat with no keyframe and the watcher draws no
wrong picture (its clock stays the marks' gap behind the latest mark, which beats bound whatever
the period). With `?batch=1` the page asks for the server's floor, one frame period, and draws the
same right picture from smaller batches."""

from __future__ import annotations

import pytest

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    artifacts, browser_type_launch_args, page_server, room,
)
from replica_session import replica
from test_page_inputs_stream import INPUTS, assert_same_picture, play_and_check, received, streaming_trio


@pytest.mark.parametrize("query, asked", [("", 250), ("&batch=1", 1)], ids=["page-default", "one-frame"])
def test_a_page_matches_every_beat_and_draws_nothing_wrong_at_its_batch_period(browser, page_server, room, artifacts,
                                                                               query, asked):
    frames, driver, watcher, joins = streaming_trio(browser, page_server, room, artifacts, INPUTS + query)
    assert all(js and all(j.get("batchMs") == asked for j in js) for js in joins), joins

    play_and_check(driver, watcher, frames)
    assert_same_picture(watcher, frames)
    watcher.wait("s => s.measures && s.measures.wrong.judged > 50")
    wrong = watcher.state("s.measures.wrong")
    assert wrong["wrong"] == 0, wrong
    r = replica(watcher)
    changes, largest = watcher.page.evaluate("[window.__changes, window.__largestBatch]")
    if asked == 250:
        # The fling's moves, 16 ms apart, wait for the period together (one frame period sends
        # them one or two at a time).
        assert largest >= 3, (largest, changes)
    print(f"watcher at {asked} ms batches: wrong {wrong['wrong']}/{wrong['judged']}, beats {r['beatsMatched']}/"
          f"{r['beatsChecked']}, batches {r['batches']} for {changes} changes (largest {largest}), received {received(watcher)}")
