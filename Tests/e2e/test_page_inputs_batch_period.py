"""The page in the inputs stream asking for a long batch period (`?stream=inputs&batch=250`;
docs/protocol.md "The inputs stream", `batchMs`), in real Chromium against the real server: the
join carries `batchMs`, the fling's moves come several to a batch, yet the driver and a watcher match
every beat with no keyframe and the watcher draws no wrong picture (its clock stays the marks'
gap behind the latest mark, which beats bound whatever the period). The page without `?batch=`
joins without `batchMs` (test_page_inputs_stream.py)."""

from __future__ import annotations

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    artifacts, browser_type_launch_args, page_server, room,
)
from replica_session import replica
from test_page_inputs_stream import INPUTS, assert_same_picture, play_and_check, received, streaming_trio

LONG = INPUTS + "&batch=250"


def test_a_page_asking_250_ms_batches_matches_every_beat_and_draws_nothing_wrong(browser, page_server, room, artifacts):
    frames, driver, watcher, joins = streaming_trio(browser, page_server, room, artifacts, LONG)
    assert all(js and all(j.get("batchMs") == 250 for j in js) for js in joins), joins

    play_and_check(driver, watcher, frames)
    assert_same_picture(watcher, frames)
    watcher.wait("s => s.measures && s.measures.wrong.judged > 50")
    wrong = watcher.state("s.measures.wrong")
    assert wrong["wrong"] == 0, wrong
    r = replica(watcher)
    changes, largest = watcher.page.evaluate("[window.__changes, window.__largestBatch]")
    # The fling's moves, 16 ms apart, wait for the period together (one frame period would send
    # them one or two at a time).
    assert largest >= 3, (largest, changes)
    print(f"watcher at 250 ms batches: wrong {wrong['wrong']}/{wrong['judged']}, beats {r['beatsMatched']}/"
          f"{r['beatsChecked']}, batches {r['batches']} for {changes} changes (largest {largest}), received {received(watcher)}")
