"""A driver agrees with the room on time (docs/wasm.md, "The clock"; issue 27): in real Chromium
through the link emulator on 4g, a driver's page stamps each input with the room time it drew it
(`at`) and the room applies it there, so through a fling, a wheel burst, keys and a row move the
driver's pictures are the room's: wrong pictures ≤ 0.5 % of the display frames in motion, no
correction larger than 2 pt in one display frame, by the page's measures, equal to their
recomputation from the raw record (measures_recompute.py). The known-bad case, the same driver
sending no `at` (test hook `unstamped()`: the room maps its inputs from `t`, where the page
cannot know), reads badly on the same measures, and input-to-picture leaves the issue's bound
(p50 one display frame, p99 two) that the stamped driver keeps. On this loaded machine a stamped
input can still reach the room late (the page counts them, test hook `lead()`): the goals are
asserted for runs where none did, a looser bound (WRONG_PCT_WITH_LATE, p99 six display frames)
for the others, which unstamped still fails."""

from __future__ import annotations

import pytest

from measures_session import assert_same_figures, fling, measured, record_total, summary
from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)
from replica_session import (
    assert_no_mismatch, frames_to_show, move_a_row, ms_summary, replica, wait_running, wheel_and_keys,
    within_the_bound,
)

WRONG_PCT = 0.5        # the goal for drivers on 4g
LARGEST_STEP_PT = 2    # no correction larger than this in one display frame
# When some of the driver's inputs still reach the room late (the loaded 2-core test machine
# stalls the server or the page for longer than the lead), each is drawn wrong until the room's
# `applied` comes back and is then blended away: seen up to 15/388 (3.9 %). Unstamped reads
# 16-93 %.
WRONG_PCT_WITH_LATE = 8


def drive(driver, row_move: bool) -> tuple[dict, list[dict]]:
    """A fling, a wheel burst, keys and (`row_move`) a row move, each until rest; the page's
    measures over them (checked against the recomputation) and input-to-picture
    (replica_session.frames_to_show)."""
    start = record_total(driver.page)
    fling(driver)
    wheel_and_keys(driver)
    if row_move:
        move_a_row(driver)
    mine, expected, _, _ = measured(driver.page, (start, record_total(driver.page)))
    assert_same_figures(mine, expected)
    assert_no_mismatch(driver, "driver")
    return mine, frames_to_show(driver.page)


@pytest.mark.alone
def test_a_driver_on_4g_draws_the_rooms_pictures_and_without_at_it_reads_badly(browser, page_server, room,
                                                                               link_proxy, artifacts):
    proxy = link_proxy(page_server.port, "4g")
    figures, photons, late = {}, {}, {}
    for label in ("stamped", "unstamped"):
        # Each in a window of its own and a room of its own (headless Chromium starves a tab behind another).
        sc = ScrollcastPage(artifacts.watch(browser.new_context().new_page(), label), page_server.base_url,
                            f"{room}-{label}")
        sc.open(f"&replica=on&nodes=127.0.0.1:{proxy.port}")   # the page from the server, its socket through the link
        wait_running(sc)
        if label == "unstamped":
            sc.page.evaluate("window.scrollcast.test.unstamped()")
        # Unstamped, the page shows the row lifted half a second after its press while the room,
        # which timed the press later, may not have lifted it when the moves come: no row move.
        figures[label], photons[label] = drive(sc, row_move=label == "stamped")
        assert replica(sc)["running"], replica(sc)
        late[label] = sc.page.evaluate("window.scrollcast.test.lead().late")
        print(f"4g {label}: {summary(figures[label], [])}, largest correction {figures[label]['picture']['largestPt']} pt; "
              f"input-to-picture {ms_summary(photons[label])}; "
              f"lead {sc.page.evaluate('window.scrollcast.test.lead()')}")
        sc.page.context.close()

    good, bad = figures["stamped"], figures["unstamped"]
    assert good["motionFrames"] > 150 and good["wrong"]["judged"] > 150, good
    if late["stamped"] == 0:
        # Every input applied where it was drawn: the goals.
        assert good["wrong"]["pct"] <= WRONG_PCT, good["wrong"]
        assert good["picture"]["largestPt"] <= LARGEST_STEP_PT, good["picture"]
    else:
        assert good["wrong"]["pct"] <= WRONG_PCT_WITH_LATE, (late, good["wrong"])
    assert within_the_bound(photons["stamped"], p99_frames=2 if late["stamped"] == 0 else 6), ms_summary(photons["stamped"])
    # Without `at` the room places the driver's moves elsewhere than it drew them.
    assert bad["wrong"]["wrong"] > max(2, 2 * good["wrong"]["wrong"]), (bad["wrong"], good["wrong"])
    assert bad["wrong"]["pct"] > WRONG_PCT_WITH_LATE and bad["picture"]["largestPt"] > LARGEST_STEP_PT, bad
    assert not within_the_bound(photons["unstamped"], p99_frames=6), ms_summary(photons["unstamped"])
