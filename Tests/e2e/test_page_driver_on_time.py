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
    # Seen 8.3-12.8 % wrong, corrections of 21-258 pt (the right driver: 0 %, 0.01 pt).
    assert bad["wrong"]["pct"] > 4 * WRONG_PCT and bad["picture"]["largestPt"] > LARGEST_STEP_PT, bad
    assert not within_the_bound(photons["unstamped"], p99_frames=6), ms_summary(photons["unstamped"])



ROOMS_BOUND_MS = 500   # how far ahead of its present the room holds an early input (InputTimeMapper.maxLead)


@pytest.mark.alone
def test_a_driver_whose_lead_passes_the_rooms_bound_reads_badly_and_its_own_most_does_not(
        browser, page_server, room, link_proxy, artifacts):
    """The driver's lead stays short of the room's bound (docs/wasm.md, "The clock"): its most
    (`lead().most`) is below it, since a stamp is rounded up past the picture on screen and one
    beyond the bound by the page's reckoning of the room's present is predicted clamped there,
    while the room, whose present is later, holds it to its stamp or to a later bound. Held past
    the bound (test hook `holdLead`), the page draws each move where the room does not make it:
    wrong pictures, corrections of whole moves. (At the bound itself it did so only when the
    stamp and the prediction read the clock in one tick: 1-2 pictures 97 pt off a fling on 4g,
    and each counted late held the lead at the bound.) Held at its own most, every input lands
    where it was drawn."""
    proxy = link_proxy(page_server.port, "4g")
    figures, late = {}, {}
    for label in ("past the bound", "own most"):
        sc = ScrollcastPage(artifacts.watch(browser.new_context().new_page(), label.replace(" ", "-")),
                            page_server.base_url, f"{room}-{label.replace(' ', '-')}")
        sc.open(f"&replica=on&nodes=127.0.0.1:{proxy.port}")
        wait_running(sc)
        most = sc.page.evaluate("window.scrollcast.test.lead().most")
        assert most < ROOMS_BOUND_MS, most
        sc.page.evaluate(f"window.scrollcast.test.holdLead({ROOMS_BOUND_MS + 50 if label == 'past the bound' else most})")
        start = record_total(sc.page)
        fling(sc)
        sc.mouse_drag(200, 300, 200, 600, steps=30)
        sc.wait_idle()
        figures[label], expected, _, _ = measured(sc.page, (start, record_total(sc.page)))
        assert_same_figures(figures[label], expected)
        lead = sc.page.evaluate("window.scrollcast.test.lead()")
        late[label] = lead["late"]
        print(f"4g lead {label} ({lead['lead']} ms): {summary(figures[label], [])}, largest correction "
              f"{figures[label]['picture']['largestPt']} pt; {late[label]} inputs applied elsewhere than drawn")
        sc.page.context.close()

    bad, good = figures["past the bound"], figures["own most"]
    assert late["past the bound"] >= 10, late
    # Seen 8.3-12.8 % wrong, corrections of 21-258 pt (the right driver: 0 %, 0.01 pt).
    assert bad["wrong"]["pct"] > 4 * WRONG_PCT and bad["picture"]["largestPt"] > LARGEST_STEP_PT, bad
    assert good["motionFrames"] > 100 and good["wrong"]["judged"] > 100, good
    # A room at rest may still take the first press late (no picture moves); a later input late
    # is the loaded machine's stall, which the first test bounds.
    if late["own most"] <= 1:
        assert good["wrong"]["pct"] <= WRONG_PCT and good["picture"]["largestPt"] <= LARGEST_STEP_PT, good
    else:
        assert good["wrong"]["pct"] <= WRONG_PCT_WITH_LATE, (late, good["wrong"])
