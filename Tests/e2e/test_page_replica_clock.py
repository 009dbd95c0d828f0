"""The page's room clocks (Public/js/replica/room-clock.js and watch-clock.js, docs/wasm.md "The clock"),
imported in real Chromium from the real server, on made-up arrivals: a driver's lead (the join's
round trip plus a display frame, grown by late inputs, steered, given back with time) and a watcher's
clock (its delay from the marks' staleness, slewed, never past the mark)."""

from __future__ import annotations

import pytest

from measures_recompute import nearest_rank
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
        c.joinRoundTrip(30); c.frameArrived(1000, 5040);
        c.inputSent(); const first = [c.lead, c.displayTime(5100), c.stamp(5100)];
        const wan = new RoomClock(); wan.joinRoundTrip(90); wan.frameArrived(0, 10); wan.inputSent();
        const lead = wan.lead; wan.displayTime(10); wan.displayTime(30_010);
        const far = new RoomClock(); far.joinRoundTrip(600); far.frameArrived(0, 10); far.inputSent();
        return [...first, lead, wan.target, far.lead, RoomClock.MAX_LEAD];""")
    # Its round trip and a frame; on a link slower than a quiet local one also a stall's worth
    # (200 ms), kept with time (only raises over the start are given back). Short of the room's
    # 500 ms (InputTimeMapper.maxLead): a stamp rounded up past the picture must not pass the
    # bound by the page's reckoning (test_page_driver_on_time.py).
    assert r == [47, 1107, 1107, 90 + 17 + 200, 90 + 17 + 200, 495, 495]


def test_a_stamp_reads_the_clock_as_it_is_now_not_a_stale_snapshot_frame(clock_page):
    # The snapshot's frame is 6 s old (the room rested); the beat after it says the present.
    r = run(clock_page, """
        c.joinRoundTrip(30); c.frameArrived(1000, 5040); c.frameArrived(7000, 5045);
        c.inputSent(); return c.stamp(5100);""")
    assert r == pytest.approx(7000 + 55 + 47)


def test_a_late_input_grows_the_lead_steered_and_time_gives_it_back_slowly(clock_page):
    r = run(clock_page, """
        c.joinRoundTrip(30); c.frameArrived(1000, 5040); c.inputSent(); c.displayTime(5100);
        c.inputApplied(47, 1200, 1200); const onTime = c.lead;
        c.inputApplied(97, 1200, 1230); c.displayTime(5110); const steering = c.lead;
        c.displayTime(5600); const grown = c.lead;
        for (let i = 0; i < 50; i += 1) c.inputApplied(144, 2000 + i, 2000 + i);
        const kept = c.lead;
        c.displayTime(35600); const halved = c.lead;
        const again = new RoomClock(); again.joinRoundTrip(30); again.frameArrived(1000, 5040); again.inputSent();
        again.inputApplied(47, 1200, 1300); again.reset(); again.joinRoundTrip(35); again.frameArrived(1100, 5200);
        again.inputSent(); const resumed = again.lead;
        c.inputApplied(144, 3000, 2900); c.displayTime(36600);
        return [onTime, steering, grown, kept, halved, c.late, c.lead, resumed];""")
    on_time, steering, grown, kept, halved, late, early, resumed = r
    assert resumed == 35 + 17 + (47 + 100 + 17 - 47), "a new connection's start, and the raise the link earned"
    assert on_time == 47, "on time at the join's lead: nothing to give back"
    assert steering == pytest.approx(49), "a fifth of the 10 ms that passed"
    raise_ = 97 + 30 + 17 - 47   # the lead it was sent with, the lateness and a margin, over the start
    assert grown == pytest.approx(47 + raise_ * 2 ** (-500 / 30000)), "raised, and 500 ms of its 30 s half-life gone"
    assert kept == grown, "inputs on time give nothing back: a burst of moves would undo the raise at once"
    assert halved == pytest.approx(47 + raise_ * 2 ** (-30500 / 30000)), "half the raise given back in 30 s"
    # Held short of its stamp: the lead was too long by 100 ms; then back toward the start with time.
    assert late == 2 and early == pytest.approx(47 - 3 * 2 ** (-1000 / 30000))


def run_watch(page, script: str):
    """Runs `script` with `w`, a fresh WatchClock, and returns what it returns."""
    return page.evaluate(f"""async () => {{ const {{ WatchClock }} = await import('/js/replica/watch-clock.js');
        const w = new WatchClock(); {script}
    }}""")


# A room in motion: mark i (room time 1000 + 16.5 i) arriving at page time 5040 + 16.5 i plus 0,
# 10 or 20 ms of jitter (the page's clock 4,000 ms ahead of the room's, 40 ms one way), in order;
# a stall holds every mark due before `held` until then. Display frames every 16 ms, so they meet
# the marks at every phase. `frame(p)` delivers the marks arrived by page time p, draws, and
# returns the clock's rate since the last display frame (room ms per ms).
MOTION = """
    const jitter = [0, 10, 20];
    let i = 0, held = -Infinity, last = null;
    const arrival = (k) => Math.max(5040 + 16.5 * k + jitter[k % 3], held);
    const frame = (p) => {
      while (arrival(i) <= p) { w.marked(1000 + 16.5 * i, arrival(i), true); i += 1; }
      const t = w.at(p), rate = last === null ? null : (t - last.t) / (p - last.p);
      last = { t, p };
      return rate;
    };
    let p = 5050;
    const rates = [];
    for (let k = 0; k < 120; k += 1, p += 16) rates.push(frame(p));
"""


def test_a_watcher_runs_behind_the_marks_by_how_stale_they_get_and_never_past_them(clock_page):
    r = run_watch(clock_page, MOTION + """
        const offset = w.offset, base = w.base, needs = [...w.needs];
        const capped = w.at(9000);   // no mark for seconds: it waits at the last one
        return { offset, base, needs, capped, mark: w.mark, rates: rates.slice(1) };""")
    assert r["base"] == 4040, "the fastest path: arrival minus mark"
    # At a display frame the latest mark is at most 16.5 ms (the marks' own cadence) plus the
    # jitter (20 ms) old beyond the fastest path; the clock keeps that plus a margin behind.
    assert 30 < max(r["needs"]) <= 16.5 + 20 + 1e-9
    assert r["offset"] == pytest.approx(4040 + nearest_rank(r["needs"], 0.99) + 2)
    assert r["capped"] == r["mark"]
    # From its first target (two frames beyond the first mark's age) it ran at real time, but for
    # slowing down by at most a tenth while its delay grew to what it measured.
    assert all(0.9 - 1e-9 <= rate <= 1.05 + 1e-9 for rate in r["rates"]), r["rates"]


def test_a_watcher_slews_its_delay_and_never_judders_however_irregular_the_display_frames(clock_page):
    # Display frames that come late (a busy page) move the clock in proportion. A stall (marks
    # held 200 ms) makes the clock wait at the mark once; its staleness is then in the window, so
    # the clock slews its delay (0.9 × real time at most), and the next stall comes and goes with
    # at most a display frame's wait (the delay covers the p99 of the staleness, not its largest).
    r = run_watch(clock_page, MOTION + """
        const late = [];
        for (const gap of [33, 50, 100, 16, 16]) { p += gap; late.push(frame(p)); }
        const stall = (ms) => { held = p + ms; const out = []; for (let k = 0; k < 60; k += 1) { p += 16; out.push(frame(p)); } return out; };
        const first = stall(200), grown = w.offset - w.base, second = stall(200);
        return { late, first, grown, second };""")
    assert all(0.9 - 1e-9 <= rate <= 1.05 + 1e-9 for rate in r["late"]), r["late"]
    judder = lambda rates: [x for x in rates if not 0.75 <= x <= 1.25]
    assert len(judder(r["first"])) >= 5, "the first stall: it waits at the mark (judder the prior is for)"
    assert r["grown"] > 150
    assert len(judder(r["second"])) <= 1, r["second"]
    assert all(0.9 - 1e-9 <= x <= 1.05 + 1e-9 for x in r["second"] if x not in judder(r["second"])), r["second"]


def test_a_watcher_waits_or_catches_up_only_while_its_picture_is_still(clock_page):
    # Where the picture is still (nothing changes before `nextChange`) the clock is invisible: it
    # waits when behind its target, catches up at once to just short of the next change.
    r = run_watch(clock_page, """
        w.marked(1000, 5040, true); const start = w.at(5050);
        w.marked(1100, 5140, true);
        w.prior = 217; const held = w.at(5066, true, Infinity) - start;   // the delay grew: its target is behind
        w.prior = 0; const caught = w.at(5082, true, 1000);
        const moving = w.at(5098) - caught;
        return { start, held, caught, moving };""")
    assert r["start"] == 5050 - 4040 - 34
    assert r["held"] == 0
    assert r["caught"] == pytest.approx(1000 - 0.5), "short of the change: the next display frame draws it"
    assert r["moving"] == pytest.approx(16 * 1.05), "in motion it slews again"


def test_a_watcher_on_a_slow_join_assumes_a_stall_until_it_has_measured_a_window(clock_page):
    r = run_watch(clock_page, """
        w.reset(120); w.marked(1000, 5040, true); const wan = w.offset - w.base;
        const lan = new WatchClock(); lan.reset(5); lan.marked(1000, 5040, true);
        return { wan, lan: lan.offset - lan.base };""")
    assert r == {"wan": 217, "lan": 34}


def test_a_stepped_watch_clock_freezes_and_jumps_never_past_what_it_knows(clock_page):
    # The known-bad clock of the test hook stepClock(ms).
    r = run_watch(clock_page, """
        w.quantum = 50;
        w.marked(1000, 5040, true); const times = [];
        for (let i = 0; i < 8; i += 1) { w.marked(1000 + 16 * i, 5040 + 16 * i, true); times.push(w.at(5050 + 16 * i)); }
        return { times, mark: w.mark };""")
    assert all(t <= r["mark"] for t in r["times"]), r
    steps = [b - a for a, b in zip(r["times"], r["times"][1:])]
    assert 0 in steps and max(steps) > 16 * 1.25, steps


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
