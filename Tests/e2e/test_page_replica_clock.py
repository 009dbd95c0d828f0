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


def run_watch(page, script: str):
    """Runs `script` with `w`, a fresh WatchClock, and returns what it returns."""
    return page.evaluate(f"""async () => {{ const {{ WatchClock }} = await import('/js/replica/room-clock.js');
        const w = new WatchClock(); {script}
    }}""")


def test_a_watcher_runs_behind_the_marks_by_how_stale_they_get_and_never_past_them(clock_page):
    # Marks every 16 ms of room time, each arriving 40 ms after it (the page's clock 4,000 ms
    # ahead of the room's) plus 0, 10 or 20 ms of jitter.
    r = run_watch(clock_page, """
        const jitter = [0, 10, 20];
        for (let i = 0; i < 30; i += 1) w.marked(1000 + 16 * i, 5040 + 16 * i + jitter[i % 3]);
        const offset = w.offset;
        const first = w.at(5490);
        const steps = []; let t = first;
        for (let p = 5506; p <= 5538; p += 16) { const next = w.at(p); steps.push(next - t); t = next; }
        const capped = w.at(9000);   // no mark for seconds: it waits at the last one
        return { offset, first, steps, capped, mark: w.mark };""")
    # The previous mark is 40 + 16 + jitter (up to 20) ms old when the next arrives.
    assert r["offset"] == 4000 + 40 + 16 + 20 + 2
    assert r["first"] == 5490 - r["offset"]
    assert r["steps"] == [16, 16, 16]
    assert r["capped"] == r["mark"] == 1000 + 16 * 29


def test_a_watcher_steers_within_a_fifth_of_real_time_and_jumps_only_while_still(clock_page):
    r = run_watch(clock_page, """
        w.marked(1000, 1040); w.marked(1016, 1056); w.marked(1032, 1072);   // offset 56 + 2
        const start = w.at(1080);
        w.marked(1048, 1150);                  // a mark 118 ms stale when it came: the offset grows
        const slowed = w.at(1096) - start;     // it slows down, never goes back
        w.marked(1100, 1151); w.gaps = [2];    // the offset shrinks again: the target is 60 ms ahead
        const at = w.at(1100);
        const steered = w.at(1112) - at, still = w.at(1124, 4000) - (at + steered);
        return { start, slowed, steered, still };""")
    assert r["start"] == 1080 - 58
    assert r["slowed"] == pytest.approx(16 * 0.8), "slows down by at most a fifth"
    assert r["steered"] == pytest.approx(12 * 1.2), "speeds up by at most a fifth"
    assert r["still"] > 12 * 1.2 + 10, "over a still stretch it catches up at once"
