"""Watchers of the inputs stream (`?stream=inputs`; docs/protocol.md "The inputs stream", docs/wasm.md)
in real Chromium, through the link emulator, in a room with a driver of the frames stream: every
picture they draw is the room's (0 wrong by docs/measures.md, and bracketed by the room's own
frames that the driver receives), their clock runs behind the marks that beats and batches bring
without waiting at them (clock judder within the watchers' bound, which a clock moving in steps
exceeds), and a page joining mid row-move draws the room's picture from its first display frame."""

from __future__ import annotations

import pytest

from measures_recompute import motion, nearest_rank
from measures_session import (
    ReceivedFrames, assert_same_figures, judder_waiting_beyond, measured, record_total, summary, watcher_delays,
)
from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)
from replica_session import move_a_row, replica, row_point, wait_running
from test_page_inputs_stream import (
    COUNT_RECEIVED, INPUTS, received as received_counts, wait_every_beat_checked, wait_streaming, wheel_burst,
)
from test_page_replica import WAITING_BEYOND_P99_PCT, WATCHER_CLOCK_JUDDER_PCT

WRONG_PT = 0.5
STEP_MS = 50

# Keeps a copy of every picture the page draws (state.lastFrame is set once per display frame that
# draws), from the very first: what a late joiner showed before any test call could look.
KEEP_DRAWN = """
(() => {
  window.__drawn = [];
  let hook;
  Object.defineProperty(window, "scrollcast", { configurable: true, get: () => hook, set(value) {
    hook = value;
    const s = value && value.state;
    if (!s || s.__kept) return;
    let frame = s.lastFrame;
    Object.defineProperty(s, "__kept", { value: true });
    Object.defineProperty(s, "lastFrame", { configurable: true, enumerable: true, get: () => frame, set(f) {
      frame = f;
      if (f && window.__drawn.length < 600) {
        window.__drawn.push({ t: f.t, offset: f.offset, animating: f.animating, replica: s.replica ? s.replica.running : false,
                              lifted: f.lifted ? { id: f.lifted.id, y: f.lifted.y, lift: f.lifted.lift } : null,
                              rows: (f.rows || []).map((r) => ({ id: r.id, y: r.y })) });
      }
    } });
  } });
})();
"""


def room_frames(received: ReceivedFrames) -> list[dict]:
    """The room's frames the frames viewer received, in room time order."""
    return sorted(received.by_seq.values(), key=lambda f: (f["t"], f["seq"]))


def bracket(frames: list[dict], t: float) -> tuple[dict, dict] | None:
    """The room's frames just before (or at) and just after (or at) room time `t`; None outside them."""
    before = [f for f in frames if f["t"] <= t]
    after = [f for f in frames if f["t"] >= t]
    return (before[-1], after[0]) if before and after else None


def within(value: float, a: float, b: float) -> bool:
    return min(a, b) - WRONG_PT <= value <= max(a, b) + WRONG_PT


def y_lifted_at_first(frames: list[dict]) -> float:
    """Where the room's first frame with a lifted row drew it."""
    return next(f["lifted"]["y"] for f in frames if f.get("lifted"))


# The room's frame period (60 Hz) and how far apart two received frames may be for the room's
# picture between them to lie between theirs.
PERIOD_MS = 1000 / 60
ADJACENT_MS = 1.5 * PERIOD_MS


def disagreements(entries: list[dict], frames: list[dict]) -> tuple[list[tuple], int]:
    """(display frames in motion whose drawn offset lies outside the room's two frames around its
    room time (within half a point): a picture no room frame could lead to; how many were
    judged). The room moves monotonically between two frames a period apart, so the room's
    picture at `t` lies between them. Two frames further apart (a viewer on a loaded machine
    skips frames, protocol.md) can hold a bounce's turn between them: not judged."""
    out, judged = [], 0
    for e, moving in zip(entries, motion(entries)):
        around = bracket(frames, e["t"]) if moving else None
        if not around or around[1]["t"] - around[0]["t"] > ADJACENT_MS:
            continue
        judged += 1
        if not within(e["offset"], around[0]["offset"], around[1]["offset"]):
            out.append((e["n"], e["t"], e["offset"], around[0]["t"], around[0]["offset"], around[1]["t"], around[1]["offset"]))
    return out, judged


def clock_judder(sc, received: ReceivedFrames, span: tuple[int, int]) -> tuple[dict, float, int, dict]:
    """(the span's figures, as the page gives and Python recomputes them; the share of display
    frames in motion where the clock judders while not waiting for a mark the link delayed
    beyond its p99 (test_page_replica.py); the judder excused so; the true lag and the marks'
    one-way delays, measures_session.watcher_delays)."""
    mine, expected, entries, _ = measured(sc.page, span)
    assert_same_figures(mine, expected)
    delays = watcher_delays(sc.page, received, entries)
    pairs, beyond = judder_waiting_beyond(entries, delays["staleness"])
    frames = mine["clock"]["frames"]
    assert frames > 100 and pairs == mine["clock"]["freezes"] + mine["clock"]["slowdowns"] + mine["clock"]["jumps"], mine["clock"]
    return mine, 100 * (pairs - beyond) / frames, beyond, delays


def show(label: str, sc, mine: dict, unexcused: float, beyond: int, delays: dict):
    w, c, clock, r = mine["wrong"], mine["clock"], sc.page.evaluate("window.scrollcast.test.watchClock()"), replica(sc)
    print(f"{label}: wrong {w['wrong']}/{w['judged']}, clock judder {c['pct']:.1f} % ({c['freezes']} freezes, "
          f"{c['slowdowns']} slowdowns, {c['jumps']} jumps; {unexcused:.1f} % not waiting beyond the p99, {beyond} that did), "
          f"true lag p50 {nearest_rank(delays['lag'], 0.5):.0f} ms, marks' one-way p99 {nearest_rank(delays['oneWay'], 0.99):.0f} ms "
          f"(fastest {min(delays['oneWay']):.0f}); clock gap {clock['gap']:.1f} ms, offset beyond base "
          f"{clock['offset'] - clock['base']:.0f} ms; beats {r['beatsMatched']}/{r['beatsChecked']}, batches {r['batches']}")


@pytest.mark.alone
@pytest.mark.parametrize("profile", ["loopback", "4g"])
def test_watchers_in_the_inputs_stream_draw_the_rooms_pictures_smoothly(browser, page, server_factory, room, link_proxy,
                                                                        artifacts, profile):
    server = server_factory("--allowed-origins", "*")
    proxy = link_proxy(server.port, profile)
    base = f"http://127.0.0.1:{proxy.port}"
    received = ReceivedFrames(artifacts.watch(page, "driver"))
    driver = ScrollcastPage(page, base, room).open("&replica=on")
    watchers = {}
    for label in ("watcher", "stepped"):
        # Each in a window of its own: headless Chromium gives a tab behind another a display frame or two a second.
        context = browser.new_context()
        context.add_init_script(COUNT_RECEIVED)
        watchers[label] = ScrollcastPage(artifacts.watch(context.new_page(), label), base, room).open(INPUTS)
    wait_running(driver)
    for sc in watchers.values():
        wait_streaming(sc)
    # The known-bad clock: in steps of three display frames (test_page_picture_known_bad.py).
    watchers["stepped"].page.evaluate(f"window.scrollcast.test.stepClock({STEP_MS})")
    page.bring_to_front()
    starts = {label: record_total(sc.page) for label, sc in watchers.items()}

    driver.drag(200, 300, 200, 500, steps=10)
    driver.wait_idle()
    driver.fling()   # made in the page: Playwright's press and moves can come a hold apart
    driver.wait_idle()
    wheel_burst(driver)
    move_a_row(driver, *watchers.values())

    figures = {}
    frames = room_frames(received)
    for label, sc in watchers.items():
        wait_every_beat_checked(sc)
        r = replica(sc)
        assert r["stream"] == "inputs" and r["mismatches"] == 0 and r["keyframes"] == 0, (label, r)
        assert r["beatsChecked"] > 5 and r["beatsMatched"] == r["beatsChecked"], (label, r)
        got = received_counts(sc)
        assert got.get("frame", 0) == 0 and got.get("unreadable", 0) == 0, f"{label} received frames in the inputs stream: {got}"
        span = (starts[label], record_total(sc.page))
        figures[label] = clock_judder(sc, received, span)
        show(f"{profile} {label}", sc, *figures[label])
        # The frames viewer and the inputs viewer agree: the watcher's every picture in motion is
        # one the room's frames lead to.
        _, _, entries, _ = measured(sc.page, span)
        off, judged = disagreements(entries, frames)
        assert not off, f"{label}: (n, t, drawn, room t before, offset, room t after, offset) {off[:5]} of {len(off)}"
        # At load 15 a third of the pictures in motion had two adjacent frames around them.
        assert judged >= 40, f"{label}: only {judged} of {sum(motion(entries))} pictures in motion judged against adjacent frames"

    mine, unexcused, _, _ = figures["watcher"]
    assert mine["wrong"]["wrong"] == 0 and mine["wrong"]["judged"] > 100, mine["wrong"]
    assert unexcused <= WATCHER_CLOCK_JUDDER_PCT, mine["clock"]
    assert mine["clock"]["pct"] <= WAITING_BEYOND_P99_PCT, mine["clock"]
    bad, bad_unexcused, _, _ = figures["stepped"]
    # Its pictures are the room's; its clock freezes and jumps, beyond the bound whatever it excuses.
    assert bad["wrong"]["wrong"] == 0, bad["wrong"]
    assert bad_unexcused > 10 * WATCHER_CLOCK_JUDDER_PCT, bad["clock"]


def late_page(browser, artifacts, label: str):
    """A page of its own that keeps every picture it draws and counts what it receives."""
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    context.add_init_script(KEEP_DRAWN)
    context.add_init_script(COUNT_RECEIVED)
    return artifacts.watch(context.new_page(), label)


def assert_right_from_the_first_picture(late: ScrollcastPage, received: ReceivedFrames) -> tuple[dict, dict, dict, dict]:
    """The late page's first picture is the replica's, and lies between the room's two frames
    around its time (the offset, every row, the lifted row and its lift); every picture it drew
    is judged right, the first included; every beat matched. Returns (that picture, the room's
    frames before and after it, the page's measures)."""
    drawn = late.page.evaluate("window.__drawn")
    assert drawn, "the late page drew nothing"
    first = drawn[0]
    assert first["replica"], f"the first picture was not the replica's: {first}"
    frames = room_frames(received)
    around = bracket(frames, first["t"])
    assert around, (first["t"], frames[0]["t"], frames[-1]["t"])
    before, after = around
    # Only two adjacent frames hold the room's picture between them (see `disagreements`); where
    # the frames viewer skipped frames, the page's own measure below still judges the first picture.
    if after["t"] - before["t"] <= ADJACENT_MS:
        assert_between(first, before, after)
    else:
        print(f"the room's frames around the first picture are {after['t'] - before['t']:.1f} ms apart: judged by the measure alone")
    # Its measure agrees: every picture it drew, judged once the history was complete, was right.
    late.page.wait_for_function("() => { const e = window.scrollcast.drawnSince(0, 1)[0]; return e && (e.room !== null || e.never); }")
    mine, expected, entries, _ = measured(late.page)
    assert_same_figures(mine, expected)
    judged = [e for e in entries if e["room"] is not None]
    assert judged and judged[0]["n"] == entries[0]["n"], f"its first display frame was judged: {entries[:2]}"
    assert all(abs(e["offset"] - e["room"]) <= WRONG_PT for e in judged), [e for e in judged if abs(e["offset"] - e["room"]) > WRONG_PT][:3]
    wait_every_beat_checked(late)
    r = replica(late)
    assert r["beatsMatched"] == r["beatsChecked"] >= 1 and r["keyframes"] == 0, r
    return first, before, after, mine


def assert_between(first: dict, before: dict, after: dict):
    """The picture lies between two adjacent frames of the room: its offset, every row, the
    lifted row and its lift."""
    assert within(first["offset"], before["offset"], after["offset"]), (first, before["offset"], after["offset"])
    rooms = {r["id"]: r["y"] for r in before["rows"]}
    rooms_after = {r["id"]: r["y"] for r in after["rows"]}
    # A row the picture shows is in one of the two frames at least; in a fast fling (121 pt a
    # frame in a fresh-clone run) two 64 pt rows can leave or enter between them, so only rows in
    # both have a place to lie between.
    assert all(r["id"] in rooms or r["id"] in rooms_after for r in first["rows"]), (first["rows"], before["rows"], after["rows"])
    shown = [r for r in first["rows"] if r["id"] in rooms and r["id"] in rooms_after]
    assert len(shown) >= len(first["rows"]) // 2, (first["rows"], before["rows"], after["rows"])
    assert all(within(r["y"], rooms[r["id"]], rooms_after[r["id"]]) for r in shown), (first["rows"], before["rows"], after["rows"])
    assert (first["lifted"] is None) == (before.get("lifted") is None), (first["lifted"], before.get("lifted"))
    if first["lifted"]:
        assert after["lifted"] and first["lifted"]["id"] == before["lifted"]["id"], around
        assert within(first["lifted"]["y"], before["lifted"]["y"], after["lifted"]["y"]), (first["lifted"], before["lifted"], after["lifted"])
        lifts = sorted((before["lifted"]["lift"], after["lifted"]["lift"]))
        assert lifts[0] - 0.01 <= first["lifted"]["lift"] <= lifts[1] + 0.01, (first["lifted"], before["lifted"], after["lifted"])


def test_a_late_joiner_mid_fling_draws_the_rooms_picture_from_its_first_display_frame(browser, page, page_server, room,
                                                                                     artifacts):
    received = ReceivedFrames(artifacts.watch(page, "driver"))
    driver = ScrollcastPage(page, page_server.base_url, room).open("&replica=on")
    wait_running(driver)
    for attempt in range(3):
        driver.fling(steps=4)
        late = ScrollcastPage(late_page(browser, artifacts, f"late-{attempt}"), page_server.base_url, room).open(INPUTS)
        wait_streaming(late)
        # Mid-fling by its own first picture (version 2's snapshot is not read here).
        late.page.wait_for_function("() => window.__drawn.length > 0")
        if late.page.evaluate("window.__drawn[0].animating"):
            break
        late.page.context.close()
        driver.wait_idle()
    else:
        raise AssertionError("never joined mid-fling")
    for sc in (driver, late):
        sc.wait_idle()
    first, before, after, mine = assert_right_from_the_first_picture(late, received)
    assert first["animating"] and before["offset"] != after["offset"], (first, before["offset"], after["offset"])
    print(f"late joiner mid-fling: first picture at t {first['t']:.1f}, offset {first['offset']:.2f} (the room's frames at "
          f"{before['t']:.1f} and {after['t']:.1f}: {before['offset']:.2f}, {after['offset']:.2f}); {summary(mine, [])}")


def test_a_late_joiner_mid_row_move_draws_the_rooms_picture_from_its_first_display_frame(browser, page, page_server,
                                                                                        room, artifacts):
    received = ReceivedFrames(artifacts.watch(page, "driver"))
    driver = ScrollcastPage(page, page_server.base_url, room).open("&replica=on")
    wait_running(driver)
    late = ScrollcastPage(late_page(browser, artifacts, "late"), page_server.base_url, room)

    # Lift a row and carry it slowly, the late page joining meanwhile.
    x, y = driver.client_point(*row_point(driver))
    page.mouse.move(x, y)
    page.mouse.down()
    driver.wait("s => s.lastFrame.lifted !== null", timeout=10000)
    step, joined_at = 0, None
    while joined_at is None or step < joined_at + 6:
        step += 1
        page.mouse.move(x, y + (4 * step if step <= 30 else 80 + 4 * (step % 10)))   # never back where it lifted
        page.wait_for_timeout(30)  # pacing of the pointer moves, not a synchronisation
        if step == 8:   # the row is on its way
            late.page.goto(f"{page_server.base_url}/?room={room}{INPUTS}", wait_until="commit")
        if step > 8 and joined_at is None and late.page.evaluate("!!(window.scrollcast && window.scrollcast.state.replica.running)"):
            joined_at = step
        assert step < 400, "the late page never started its replica"
    page.mouse.up()
    for sc in (driver, late):
        sc.wait_idle()
    wait_streaming(late)
    first, before, after, mine = assert_right_from_the_first_picture(late, received)
    assert first["lifted"] is not None, f"the first picture was not mid-move: {first}"
    assert first["lifted"]["y"] != y_lifted_at_first(room_frames(received)), "joined before the row moved"
    print(f"late joiner mid row-move: first picture at t {first['t']:.1f}, lifted row {first['lifted']} (the room's frames "
          f"at {before['t']:.1f} and {after['t']:.1f}: {before['lifted']}, {after['lifted']}); {summary(mine, [])}")
