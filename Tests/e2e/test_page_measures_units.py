"""The page's pure measure modules (Public/js/measure/), imported in real Chromium from the real
server, on made-up display-frame sequences whose judder and input-to-photon docs/measures.md
fixes; each case is also run through the Python recomputation (measures_recompute.py), so the
two implementations of the document agree."""

from __future__ import annotations

import pytest

from measures_recompute import judder as py_judder
from page_fixtures import browser_type_launch_args, page_server  # noqa: F401


@pytest.fixture(scope="module")
def modules(browser, page_server):
    """A page at the server's origin (no room joined) that imports the measure modules."""
    page = browser.new_page()
    page.goto(f"{page_server.base_url}/styles.css")   # any document of the origin
    page.evaluate("""async () => {
        window.M = {
          ...(await import('/js/measure/judder.js')),
          ...(await import('/js/measure/input-to-photon.js')),
          ...(await import('/js/measure/drawn-record.js')),
          ...(await import('/js/measure/quantile.js')),
        }; }""")
    yield page
    page.close()


def frames(seqs, *, display=16.667, server=16.667, animating=None, offset_per_seq=10.0):
    """Entries for display frames showing `seqs` in turn (−1: nothing yet), `display` ms apart;
    frame `s` stands for room time s·server and offset s·offset_per_seq."""
    animating = animating or [True] * len(seqs)
    return [{"n": i, "at": i * display + 1, "vsync": i * display, "seq": s, "t": s * server,
             "offset": s * offset_per_seq, "animating": a, "input": -1, "own": False, "fresh": True}
            for i, (s, a) in enumerate(zip(seqs, animating))]


def run_judder(page, entries):
    mine = page.evaluate("e => M.judder(e)", entries)
    theirs = py_judder(entries)
    for key, value in theirs.items():
        assert mine[key] == pytest.approx(value), (key, mine, theirs)
    return mine


def test_a_smooth_motion_has_no_judder(modules):
    j = run_judder(modules, frames(list(range(10, 40))))
    assert (j["motionFrames"], j["repeats"], j["skips"], j["judderPct"]) == (29, 0, 0, 0)
    assert j["roughnessPt"] == pytest.approx(0)
    assert j["serverPeriodMs"] == pytest.approx(16.667) and j["displayPeriodMs"] == pytest.approx(16.667)


def test_repeats_and_skips_mid_motion_count(modules):
    seqs = list(range(10, 20)) + [19, 19] + [22] + list(range(23, 30))   # 2 repeats, then a skip of 2
    j = run_judder(modules, frames(seqs))
    assert (j["repeats"], j["skips"], j["motionFrames"]) == (2, 1, len(seqs) - 1)
    assert j["judderPct"] == pytest.approx(100 * 3 / (len(seqs) - 1))
    assert j["roughnessPt"] > 0


def test_motion_starts_and_ends_with_the_animating_flag(modules):
    # At rest on 5 (not animating, kept 3 times), motion from 7 (6 was never drawn: a skip),
    # the last animating frame 12 is kept twice waiting for 13 (repeats), 13 ends motion.
    seqs = [5, 5, 5, 7, 8, 9, 10, 11, 12, 12, 12, 13, 13]
    anim = [False, False, False, True, True, True, True, True, True, True, True, False, False]
    j = run_judder(modules, frames(seqs, animating=anim))
    assert (j["motionFrames"], j["repeats"], j["skips"]) == (8, 2, 1)


def test_a_hold_with_nothing_new_to_show_is_not_judder(modules):
    # The room sent nothing for 10 periods (nothing visible changed): frame 20 stands for 11
    # display frames, and the next frame's room time says so.
    def held(extra_showings):
        entries = frames(list(range(10, 21)) + [20] * extra_showings + list(range(21, 30)))
        for e in entries:
            e["t"] += 10 * 16.667 if e["seq"] >= 21 else 0
        return run_judder(modules, entries)
    assert held(10)["repeats"] == 0
    assert held(12)["repeats"] == 2, "frame 21 two display frames late"


def test_a_60_hz_room_on_a_120_hz_display_shows_each_frame_twice_without_judder(modules):
    seqs = [s for s in range(10, 30) for _ in range(2)]
    j = run_judder(modules, frames(seqs, display=8.333))
    assert (j["showingsAllowed"], j["repeats"], j["skips"]) == (2, 0, 0)
    seqs = seqs[:20] + [seqs[19]] + seqs[20:]                          # one frame shown three times
    assert run_judder(modules, frames(seqs, display=8.333))["repeats"] == 1


def test_a_120_hz_room_on_a_60_hz_display_steps_two_frames_without_judder(modules):
    j = run_judder(modules, frames(list(range(10, 60, 2)), server=8.333))
    assert (j["stepAllowed"], j["skips"], j["repeats"]) == (2, 0, 0)
    j = run_judder(modules, frames(list(range(10, 40, 2)) + [43, 45], server=8.333))
    assert j["skips"] == 1


def test_display_frames_the_browser_dropped_are_reported_apart(modules):
    entries = frames(list(range(10, 40)))
    del entries[10:12]                     # two display frames with no callback; seq jumps by 3
    j = run_judder(modules, entries)
    assert j["dropped"] == 2 and j["skips"] == 1


def test_input_to_photon_from_event_time_to_the_first_frame_naming_it(modules):
    result = modules.evaluate("""() => {
        const m = new M.InputToPhoton(4);
        m.sent(1, 100, 'pointerDown'); m.sent(2, 110, 'pointerMove'); m.sent(3, 120, 'wheel');
        m.sent(4, 130, 'pointerMove'); m.sent(5, 140, 'pointerMove');
        m.refused(5);
        m.shown(150, 2);            // shows 1 and 2
        m.shown(160, 2);            // nothing new
        m.shown(175, 4);            // 4 (3 was a wheel: not counted)
        const first = { summary: m.summary(), samples: m.samples() };
        m.sent(6, 200, 'pointerMove'); m.reset(); m.shown(260, 6);           // a new connection
        for (let id = 7; id < 12; id += 1) { m.sent(id, 300 + id, 'pointerMove'); m.shown(310 + id, id); }
        return { first, later: m.summary(), window: m.samples(), sent: m.sentInputs() }; }""")
    assert result["first"]["samples"] == [{"id": 1, "ms": 50}, {"id": 2, "ms": 40}, {"id": 4, "ms": 45}]
    assert result["first"]["summary"] == {"p50": 45, "p99": 50, "samples": 3}
    assert [s["id"] for s in result["window"]] == [8, 9, 10, 11], "the window keeps the last 4 samples"
    assert result["later"] == {"p50": 10, "p99": 10, "samples": 4}
    assert [s["id"] for s in result["sent"]] == [8, 9, 10, 11]


def test_the_drawn_record_is_a_ring_read_as_plain_objects(modules):
    result = modules.evaluate("""() => {
        const r = new M.DrawnRecord(3);
        for (let i = 0; i < 5; i += 1)
          r.push(10 * i, 10 * i - 1, { seq: 100 + i, t: 16 * i, offset: i / 2, animating: i % 2 === 0,
                                        input: { viewer: 'v1', id: 7 } }, i === 4, i !== 2);
        r.push(60, 59, { seq: 2 ** 40, t: 1, offset: -44, animating: false, input: null }, false, true);
        return { length: r.length, first: r.first, all: r.entries(), last: r.entries(1), gone: r.entry(1),
                 since: r.since(4, 5) }; }""")
    assert (result["length"], result["first"]) == (3, 3)
    assert [e["n"] for e in result["all"]] == [3, 4, 5] and result["gone"] is None
    assert result["all"][1] == {"n": 4, "at": 40, "vsync": 39, "seq": 104, "t": 64, "offset": 2,
                                "animating": True, "input": 7, "own": True, "fresh": True}
    assert result["last"] == [result["all"][2]] and result["all"][2]["seq"] == 2 ** 40
    assert result["all"][2]["input"] == -1 and result["since"] == [result["all"][1]]


def test_nearest_rank_quantiles(modules):
    assert modules.evaluate("M.nearestRank([5, 1, 4, 2, 3], 0.5)") == 3
    assert modules.evaluate("M.nearestRank(Array.from({length: 100}, (_, i) => 100 - i), 0.99)") == 99
    assert modules.evaluate("M.nearestRank([], 0.5)") is None
