"""The page's room clock (Public/js/replica/room-clock.js, docs/wasm.md "The clock"), imported in
real Chromium from the real server, on made-up arrivals: the lead is measured against the clock
as it is now, so a seconds-old snapshot frame cannot make it seconds."""

from __future__ import annotations

import pytest

from page_fixtures import browser_type_launch_args, page_server  # noqa: F401


@pytest.fixture(scope="module")
def clock_page(browser, page_server):
    page = browser.new_page()
    page.goto(f"{page_server.base_url}/styles.css")   # any document of the origin
    page.evaluate("async () => { window.RoomClock = (await import('/js/replica/room-clock.js')).RoomClock; }")
    yield page
    page.close()


def run(page, script: str):
    """Runs `script` with `c`, a fresh RoomClock, and returns what it returns."""
    return page.evaluate(f"() => {{ const c = new RoomClock(); {script} }}")


def test_a_watcher_has_no_lead_and_the_least_delayed_frame_sets_the_clock(clock_page):
    r = run(clock_page, """
        c.joinRoundTrip(90);
        c.frameArrived(1000, 5040); c.frameArrived(1016, 5070); c.frameArrived(1033, 5073);
        return [c.lead, c.arrivalTime(5100), c.displayTime(5100)];""")
    assert r == [0, 1060, 1060]


def test_the_lead_is_the_join_round_trip_until_an_own_input_comes_back(clock_page):
    r = run(clock_page, """
        c.joinRoundTrip(90); c.frameArrived(1000, 5040);
        c.inputSent(); return [c.lead, c.displayTime(5100)];""")
    assert r == [90, 1150]


def test_a_stale_snapshot_frame_does_not_make_the_lead_seconds(clock_page):
    # The snapshot's frame is 6 s old (the room rested); the first input goes out when the clock
    # says 1,100 while the room is at 7,100; it comes back applied at 7,180 with a fresh frame.
    r = run(clock_page, """
        c.joinRoundTrip(80); c.frameArrived(1000, 5040);
        c.inputSent(); c.inputApplied(5140, 7180);
        const stale = c.lead;
        c.frameArrived(7180, 5230);   // the applied's own time, fresh: offset 5230 − 7180
        c.frameArrived(7183, 5236);
        return [stale, c.lead, c.arrivalTime(5300)];""")
    stale, lead, now = r
    assert stale == pytest.approx(6080), "against the stale clock the sample says seconds"
    assert lead == pytest.approx(7180 - (5140 - (5230 - 7180))) == pytest.approx(90)
    assert now == pytest.approx(7250)


def test_the_lead_is_the_lower_median_and_never_negative(clock_page):
    r = run(clock_page, """
        c.frameArrived(0, 100); c.inputSent();
        c.inputApplied(100, -20); const one = c.lead;
        c.inputApplied(200, 600); const two = c.lead;
        c.inputApplied(300, 230); const three = c.lead;
        return [one, two, three];""")
    assert r == [0, 0, 30]
