"""The measures of the picture (docs/measures.md) read badly where the picture is bad, in real
Chromium against the real server: test-only hooks (window.scrollcast.test) skew a watcher's
replica clock or make it move in steps, or make a driver's replica leave out its own inputs. The figures come from each
page's own record and equal their Python recomputation (measures_recompute.py). The other
known-bad case, `?replica=off` on 4g, is in test_page_measures.py."""

from __future__ import annotations

import pytest

from measures_recompute import nearest_rank
from measures_session import (
    ReceivedFrames, assert_same_figures, clock_lag_bound, judder_waiting_beyond, measured, picture_samples,
    record_staleness, record_total, summary, watcher_delays,
)
from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)
from replica_session import wait_running

SKEW_MS = 300
STEP_MS = 50


def figures_since(sc, start: int) -> dict:
    mine, expected, _, _ = measured(sc.page, (start, record_total(sc.page)))
    assert_same_figures(mine, expected)
    return mine


@pytest.mark.alone
def test_a_watcher_drawing_ahead_of_the_room_or_behind_it_reads_badly(browser, page, page_server, room, artifacts):
    base = page_server.base_url
    driver = ScrollcastPage(artifacts.watch(page, "driver"), base, room).open("&replica=on")
    pages = {}
    for label in ("right", "ahead", "behind", "stepped"):
        # Each in a window of its own: headless Chromium gives a tab behind another a display frame or two a second.
        window = browser.new_context().new_page()
        if label == "stepped":
            received = ReceivedFrames(window)
        pages[label] = ScrollcastPage(artifacts.watch(window, label), base, room).open("&replica=on")
    for sc in (driver, *pages.values()):
        wait_running(sc)
    pages["ahead"].page.evaluate(f"window.scrollcast.test.skewClock({SKEW_MS})")
    pages["behind"].page.evaluate(f"window.scrollcast.test.skewClock({-SKEW_MS})")
    pages["stepped"].page.evaluate(f"window.scrollcast.test.stepClock({STEP_MS})")
    starts = {label: record_total(sc.page) for label, sc in pages.items()}

    # A slow drag (every move changes the picture: a watcher drawing ahead guesses them all) and a fling.
    driver.drag(200, 300, 200, 560, steps=16)
    driver.wait_idle()
    driver.fling()   # made in the page: Playwright's press and moves can come a hold apart
    for sc in pages.values():
        sc.wait_idle()
    figures = {label: figures_since(sc, starts[label]) for label, sc in pages.items()}
    for label, f in figures.items():
        print(f"{label}: {summary(f, [])}")

    right, ahead, behind, stepped = figures["right"], figures["ahead"], figures["behind"], figures["stepped"]
    # Ahead of the room's history, the watcher draws the drag's moves before they happen.
    # (About every display frame of the drag; the fling after it, known from its release, is right.)
    # (A move of the drag is 16 pt; a loaded machine paces the drag slower, so the moves a guess
    # misses in SKEW_MS are fewer: 17.5 pt largest at load 12.)
    assert ahead["wrong"]["wrong"] >= 4 and ahead["wrong"]["largestPt"] > 5, ahead["wrong"]
    assert ahead["wrong"]["wrong"] > 3 * right["wrong"]["wrong"], (ahead["wrong"], right["wrong"])
    # Behind it by SKEW_MS, the watcher draws that much later; ahead, that much earlier. Each
    # page's clock covers the stalls its own window saw, so at load the right page's delay can
    # be 300 ms over the behind page's own (402 against 462 ms once): the behind page is held to
    # its own bound below, and to the page ahead here, 2 × SKEW_MS apart.
    assert behind["lag"]["p50"] > ahead["lag"]["p50"] + SKEW_MS, (behind["lag"], ahead["lag"])
    assert ahead["lag"]["p50"] < right["lag"]["p50"] - SKEW_MS / 2, (ahead["lag"], right["lag"])
    # A clock in steps of three display frames: the room's own pictures, but it freezes and jumps.
    assert stepped["wrong"]["wrong"] == 0, stepped["wrong"]
    assert stepped["clock"]["freezes"] > 10 and stepped["clock"]["jumps"] > 10, stepped["clock"]
    # At 60 Hz a 50 ms step is two freezes and a jump in three frames (91-100 % in most runs); a
    # window whose display frames come slower steps less often per frame (26.8 % in one quiet run).
    assert stepped["clock"]["pct"] > 15 > right["clock"]["pct"], (stepped["clock"], right["clock"])
    # Nor does test_page_replica's allowance for marks delayed beyond the link's p99 excuse it: what
    # it leaves is held there to 1 % (WATCHER_CLOCK_JUDDER_PCT); here over the 15 % of the line
    # before (it was 50 %, which a fresh-clone run's stepped page missed: judder on 42.5 % of its
    # display frames, 3 of its 210 pairs excused, 41.9 % left).
    _, _, entries, _ = measured(pages["stepped"].page, (starts["stepped"], record_total(pages["stepped"].page)))
    delays = watcher_delays(pages["stepped"].page, received, entries)
    pairs, beyond = judder_waiting_beyond(entries, delays["staleness"])
    assert 100 * (pairs - beyond) / stepped["clock"]["frames"] > 15, (pairs, beyond, stepped["clock"])
    # Nor does test_page_replica's bound on the true lag let the watcher drawing behind pass (the
    # room's present read off the stepped page's frames: one server, one clock).
    span = (starts["behind"], record_total(pages["behind"].page))
    _, _, entries, _ = measured(pages["behind"].page, span)
    delays = watcher_delays(pages["behind"].page, received, entries)
    prior = pages["behind"].page.evaluate("window.scrollcast.test.watchClock().prior")
    # The bound as test_page_replica takes it, its clock's window reaching back before the span.
    history = record_staleness(pages["behind"].page, span[1])
    lag, bound = nearest_rank(delays["lag"], 0.5), clock_lag_bound(delays, prior, history)
    print(f"behind: true lag p50 {lag:.0f} ms against the bound {bound:.0f} ms")
    assert lag > bound, (lag, bound)


def test_a_driver_that_leaves_out_its_own_inputs_reads_badly(page, page_server, room, artifacts):
    driver = ScrollcastPage(artifacts.watch(page), page_server.base_url, room).open("&replica=on")
    wait_running(driver)
    start = record_total(page)
    # The drag's inputs will have the next ids: the replica leaves them out until the server's
    # frames confirm them, so its pictures trail the room and then catch up with a jolt.
    first = driver.state("s.lastInputId") + 1
    page.evaluate("(first) => { for (let id = first; id < first + 200; id += 1) window.scrollcast.test.dropInput(id); }", first)
    driver.drag(200, 300, 200, 560, steps=16)
    # Its pictures leave the drag out until the room's frames bring it, so right after the release
    # the page can still draw the rest before the drag (a fresh-clone run's wait for rest ended
    # there, with nothing in motion recorded): first the picture with the release.
    driver.wait("(s, up) => s.lastFrame.input !== null && s.lastFrame.input.id >= up", driver.state("s.lastInputId"))
    driver.wait_idle()
    f = figures_since(driver, start)
    print(f"dropped inputs: {summary(f, [s['ms'] for s in picture_samples(page)])}")
    assert f["wrong"]["wrong"] > 0 and f["wrong"]["largestPt"] > 5, f["wrong"]
    assert f["picture"]["off"] > 0 and f["picture"]["largestPt"] > 5, f["picture"]
