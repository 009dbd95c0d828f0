"""The page's room clock (Public/js/replica/room-clock.js, docs/wasm.md "The clock"), imported in
real Chromium from the real server, on made-up arrivals: a driver's lead (the join's round trip
plus a display frame, grown by late inputs, steered, decaying back) and a watcher's clock."""

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


def test_a_driver_leads_by_the_join_round_trip_plus_a_display_frame_and_never_past_the_held_bound(clock_page):
    r = run(clock_page, """
        c.joinRoundTrip(90); c.frameArrived(1000, 5040);
        c.inputSent(); const first = [c.lead, c.displayTime(5100), c.stamp(5100)];
        const far = new RoomClock(); far.joinRoundTrip(400); far.frameArrived(0, 10); far.inputSent();
        return [...first, far.lead];""")
    assert r == [107, 1167, 1167, 250]


def test_a_stamp_reads_the_clock_as_it_is_now_not_a_stale_snapshot_frame(clock_page):
    # The snapshot's frame is 6 s old (the room rested); the beat after it says the present.
    r = run(clock_page, """
        c.joinRoundTrip(80); c.frameArrived(1000, 5040); c.frameArrived(7000, 5045);
        c.inputSent(); return c.stamp(5100);""")
    assert r == pytest.approx(7000 + 55 + 97)


def test_a_late_input_grows_the_lead_steered_and_on_time_inputs_give_it_back_slowly(clock_page):
    r = run(clock_page, """
        c.joinRoundTrip(80); c.frameArrived(1000, 5040); c.inputSent(); c.displayTime(5100);
        c.inputApplied(97, 1200, 1200); const onTime = c.lead;
        c.inputApplied(97, 1200, 1230); c.displayTime(5110); const steering = c.lead;
        c.displayTime(5400); const grown = c.lead;
        for (let i = 0; i < 50; i += 1) c.inputApplied(144, 2000 + i, 2000 + i);
        c.displayTime(6400); const decayed = c.lead;
        c.inputApplied(144, 3000, 2900); c.displayTime(7400);
        return [onTime, steering, grown, decayed, c.late, c.lead];""")
    on_time, steering, grown, decayed, late, early = r
    assert on_time == 97, "on time at the join's lead: nothing to give back"
    assert steering == pytest.approx(99), "a fifth of the 10 ms that passed"
    assert grown == pytest.approx(97 + 30 + 17), "the lead it was sent with, the lateness and a margin"
    assert decayed == pytest.approx(97 + 47 * 0.98 ** 50), "2 % of the excess per input on time"
    assert late == 2 and early == pytest.approx(44), "held short of its stamp: the lead was too long by 100 ms"


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


def test_a_late_inputs_correction_is_drawn_away_over_five_frames(clock_page):
    # The engine's picture moved by 5 pt (then by 30 pt) at the same room time: the content is
    # drawn shifted by what is left, shrinking linearly over five display frames.
    r = clock_page.evaluate("""async () => {
        const { Blend } = await import('/js/replica/blend.js');
        const b = new Blend(), frame = { offset: 100, rows: [{ id: 1, y: 50, h: 44 }] };
        const drawn = (n) => Array.from({ length: n }, () => { const f = b.apply(frame); return [f.offset, f.rows[0].y]; });
        b.add(5); const small = drawn(6);
        b.add(-30); const large = drawn(6);
        return { small, large, same: b.apply(frame) === frame };
    }""")
    assert [o for o, _ in r["small"]] == pytest.approx([104, 103, 102, 101, 100, 100])
    assert [o for o, _ in r["large"]] == pytest.approx([76, 82, 88, 94, 100, 100])
    assert all(o + y == pytest.approx(150) for o, y in r["small"] + r["large"]), "rows move with the offset"
    assert r["same"], "nothing left: the engine's own picture"
