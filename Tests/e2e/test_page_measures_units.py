"""The page's pure measure modules (Public/js/measure/), imported in real Chromium from the real
server, on made-up display-frame sequences whose wrong pictures, judder, input-to-picture and lag
docs/measures.md fixes; each case is also run through the Python recomputation
(measures_recompute.py), so the two implementations of the document agree."""

from __future__ import annotations

import pytest

from measures_recompute import driver_to_watcher, picture_measures
from measures_session import assert_same_figures
from page_fixtures import browser_type_launch_args, page_server  # noqa: F401

DISPLAY = 16.667


@pytest.fixture(scope="module")
def modules(browser, page_server):
    """A page at the server's origin (no room joined) that imports the measure modules."""
    page = browser.new_page()
    page.goto(f"{page_server.base_url}/styles.css")   # any document of the origin
    page.evaluate("""async () => {
        window.M = {
          ...(await import('/js/measure/picture.js')),
          ...(await import('/js/measure/sent-inputs.js')),
          ...(await import('/js/measure/drawn-record.js')),
          ...(await import('/js/measure/quantile.js')),
        }; }""")
    yield page
    page.close()


def frames(times, *, speed=1.0, errors=None, room_known=True, own_from=None, present_ahead=30.0):
    """Entries for display frames DISPLAY ms apart drawing room times `times` while the room moves
    `speed` pt per ms; `errors[i]` is how far the drawn offset is off the room's; `own_from` is
    [(entry index, input id)]: from that entry on, the picture names this viewer's input id."""
    errors = errors or {}
    own = dict(own_from or [])
    entries, current = [], -1
    for i, t in enumerate(times):
        current = own.get(i, current)
        room = t * speed
        entries.append({"n": i, "at": i * DISPLAY + 1, "vsync": i * DISPLAY, "seq": i, "t": t,
                        "offset": room + errors.get(i, 0.0), "animating": True, "input": current,
                        "own": current >= 0, "fresh": True, "replica": True, "room": room if room_known else None,
                        "present": t + present_ahead})
    return entries


def run(page, entries, sent=()):
    mine = page.evaluate("([e, s]) => M.pictureMeasures(e, s)", [entries, list(sent)])
    theirs = picture_measures(entries, list(sent))
    assert_same_figures(mine, theirs)
    return mine


def smooth(n=30):
    return [1000 + i * DISPLAY for i in range(n)]


def test_a_right_picture_on_a_steady_clock_reads_nothing(modules):
    m = run(modules, frames(smooth()))
    assert m["motionFrames"] == 29
    assert (m["wrong"]["wrong"], m["wrong"]["judged"], m["wrong"]["largestPt"]) == (0, 29, 0)
    assert (m["clock"]["pct"], m["picture"]["pct"]) == (0, 0)
    assert m["lag"]["p50"] == pytest.approx(30)


def test_wrong_pictures_count_past_half_a_point_and_keep_the_largest(modules):
    m = run(modules, frames(smooth(), errors={5: 0.4, 6: 3.0, 7: -12.0}))
    assert m["wrong"]["wrong"] == 2 and m["wrong"]["largestPt"] == pytest.approx(12)
    # The steps into and out of each error are corrections of the picture.
    assert m["picture"]["off"] == 3 and m["picture"]["largestPt"] == pytest.approx(15)


def test_pictures_not_judged_yet_are_counted_apart(modules):
    m = run(modules, frames(smooth(), room_known=False))
    assert (m["wrong"]["judged"], m["wrong"]["unconfirmed"], m["wrong"]["pct"]) == (0, 29, None)


def test_the_clock_freezes_slows_and_jumps(modules):
    times = smooth(10)
    times += [times[-1]] * 2                                            # two freezes
    times += [times[-1] + DISPLAY * 0.5]                                # a slowdown
    times += [times[-1] + DISPLAY * 3] + [times[-1] + DISPLAY * (4 + i) for i in range(10)]   # a jump
    m = run(modules, frames(times))
    c = m["clock"]
    assert (c["freezes"], c["slowdowns"], c["jumps"]) == (2, 1, 1), c
    assert c["pct"] == pytest.approx(100 * 4 / c["frames"])


def test_input_to_picture_is_the_first_right_picture_naming_the_input(modules):
    # Input 1 at 10 ms: named from entry 3 on, wrong there and at 4, right at 5. Input 2 at 40 ms
    # is named from entry 6, right. Input 3 (a wheel) is not a pointer input. Input 4 was refused.
    entries = frames(smooth(12), errors={3: 5.0, 4: 2.0}, own_from=[(3, 1), (6, 2)])
    sent = modules.evaluate("""() => { const s = new M.SentInputs();
        s.sent(1, 10, 'pointerDown'); s.sent(2, 40, 'pointerMove'); s.sent(3, 50, 'wheel'); s.sent(4, 60, 'pointerMove');
        s.refused(4); return s.inputs(); }""")
    assert sent == [{"id": 1, "t": 10}, {"id": 2, "t": 40}]
    mine = modules.evaluate("([e, s]) => M.inputToPicture(e, s)", [entries, sent])
    assert mine == [{"id": 1, "ms": pytest.approx(5 * DISPLAY + 1 - 10)}, {"id": 2, "ms": pytest.approx(6 * DISPLAY + 1 - 40)}]
    m = run(modules, entries, sent)
    assert m["inputToPicture"]["count"] == 2


def test_a_picture_not_judged_yet_holds_input_to_picture(modules):
    entries = frames(smooth(12), own_from=[(3, 1)])
    for e in entries[3:]:
        e["room"] = None
    assert modules.evaluate("([e, s]) => M.inputToPicture(e, s)", [entries, [{"id": 1, "t": 10}]]) == []


def test_the_first_picture_after_exploring_is_only_a_reference(modules):
    """The page recorded nothing while the viewer explored (docs/measures.md, "Exploring"): the
    entry after that pause, whatever jump it shows and however wrong it would be judged, is not in
    motion; without its `resumed` the same entries read a wrong picture and picture judder."""
    entries = frames(smooth(12))
    entries[6]["offset"] += 900
    jumped = run(modules, entries)
    assert jumped["wrong"]["wrong"] == 1 and jumped["picture"]["off"] == 2, jumped
    entries[6]["resumed"] = True
    clean = run(modules, entries)
    assert clean["motionFrames"] == jumped["motionFrames"] - 1, clean
    assert clean["wrong"]["wrong"] == 0 and clean["picture"]["off"] == 0, clean
    paused = modules.evaluate("""() => {
        const r = new M.DrawnRecord(8);
        const frame = { seq: 1, t: 1, offset: 0, animating: false, input: null };
        r.push(1, 1, frame, false, true); r.pause(); r.push(2, 2, frame, false, true); r.push(3, 3, frame, false, true);
        return r.entries().map((e) => e.resumed); }""")
    assert paused == [False, True, False]


def test_the_drawn_record_is_a_ring_read_as_plain_objects(modules):
    result = modules.evaluate("""() => {
        const r = new M.DrawnRecord(3);
        for (let i = 0; i < 5; i += 1)
          r.push(10 * i, 10 * i - 1, { seq: 100 + i, t: 16 * i, offset: i / 2, animating: i % 2 === 0,
                                        input: { viewer: 'v1', id: 7 } }, i === 4, i !== 2, NaN, 16 * i + 40);
        r.confirm(4, 2.25);
        r.confirm(1, 9);   // gone from the ring: ignored
        const n = r.push(60, 59, { seq: 2 ** 40, t: 1, offset: -44, animating: false, input: null }, false, true, -44, NaN, true);
        return { n, length: r.length, first: r.first, all: r.entries(), last: r.entries(1), gone: r.entry(1),
                 since: r.since(4, 5) }; }""")
    assert (result["n"], result["length"], result["first"]) == (5, 3, 3)
    assert [e["n"] for e in result["all"]] == [3, 4, 5] and result["gone"] is None
    assert result["all"][1] == {"n": 4, "at": 40, "vsync": 39, "seq": 104, "t": 64, "offset": 2,
                                "animating": True, "input": 7, "own": True, "fresh": True, "replica": False, "never": False, "resumed": False,
                                "room": 2.25, "present": 104}
    assert result["all"][0]["room"] is None
    assert result["last"] == [result["all"][2]] and result["all"][2]["seq"] == 2 ** 40
    assert result["all"][2]["input"] == -1 and result["since"] == [result["all"][1]]
    assert result["all"][2]["room"] == -44 and result["all"][2]["present"] is None and result["all"][2]["replica"]


def test_nearest_rank_quantiles(modules):
    assert modules.evaluate("M.nearestRank([5, 1, 4, 2, 3], 0.5)") == 3
    assert modules.evaluate("M.nearestRank(Array.from({length: 100}, (_, i) => 100 - i), 0.99)") == 99
    assert modules.evaluate("M.nearestRank([], 0.5)") is None


def test_driver_to_watcher_is_the_watchers_first_right_picture_at_the_inputs_room_time():
    # The watcher's page clock reads 1000 ms more than the driver's at one instant (its origin
    # 1000 ms earlier: shift −1000); it draws room time 500 + 16·i at page time 2000 + 16·i. Input 1 (event at driver time 1010, watcher time 10), applied at room
    # time 560: first drawn at t ≥ 560 is entry 4 (t 564, at 2064), but it is wrong; entry 5 is right.
    entries = [{"at": 2000 + 16 * i, "t": 500 + 16 * i, "offset": 0.0, "room": 0.0} for i in range(12)]
    entries[4]["room"] = 3.0
    entries[8]["never"] = True
    sent = [{"id": 1, "t": 1010}, {"id": 2, "t": 1020}, {"id": 3, "t": 1030}, {"id": 4, "t": 1040}]
    applied = {1: 560, 2: 620, 4: 660}   # input 3 never applied: no sample
    # Input 2: entry 8 (t 628) is never judged, passed over for entry 9. Input 4: entry 10 not
    # judged yet ends the search.
    entries[10]["room"] = None
    samples = driver_to_watcher(sent, applied, entries, shift=-1000)
    assert samples == [{"id": 1, "ms": 2080 - 2010}, {"id": 2, "ms": 2144 - 2020}]
    # An event before the record's first entry has no sample.
    assert driver_to_watcher(sent, applied, entries, shift=0) == []
