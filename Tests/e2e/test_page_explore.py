"""Explore on your own, follow again (docs/design.md, "Explore and follow"), in real Chromium, two
pages of one room on the real server. The explorer's fling moves its own table only: the other
page's picture stays, the server applies and refuses no input; presence counts one explorer on
both overlays. Follow eases back over EASE_MS of room time, every eased picture a step toward the
room's, ending on the room's picture, after which the page draws the room's frames again (its
replica identical to every server frame). A key holder calls a locked room's explorer back; a
page without its engine says why. Across a cluster's nodes: test_cluster_sharing_page.py."""

from __future__ import annotations

import pytest

from measures_recompute import picture_measures
from measures_session import record_total
from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)
from replica_session import assert_no_mismatch, wait_running
from server_helpers import metric

EASE_MS = 400   # Public/js/explore.js, documented in docs/design.md


@pytest.fixture()
def windows(browser):
    """Opens browser windows (contexts) for this test and closes them when it ends: their pages leave the room."""
    opened = []

    def new_window():
        opened.append(browser.new_context())
        return opened[-1]

    yield new_window
    for context in opened:
        context.close()


# Every display frame the browser offers the document, whatever the page's own loop does: an ease
# with a long gap between its pictures is a starved tab only if the browser offered none in it.
OFFERED_FRAMES = """window.__offeredFrames = [];
requestAnimationFrame(function offered(ts) { window.__offeredFrames.push(ts); requestAnimationFrame(offered); });"""


def _open(windows, artifacts, base_url: str, room: str, label: str, extra: str = "&replica=on") -> ScrollcastPage:
    page = artifacts.watch(windows().new_page(), label)
    page.add_init_script(OFFERED_FRAMES)
    return ScrollcastPage(page, base_url, room).open(extra)


def _counts(sc: ScrollcastPage) -> str:
    return sc.page.locator("#view-counts").inner_text()


def _server_inputs(server) -> tuple[float, float]:
    return metric(server, "scrollcast_inputs_total"), metric(server, "scrollcast_refused_inputs_total")


def _assert_eased_back(sc: ScrollcastPage, room_offset: float) -> dict:
    """The last ease: its pictures step strictly toward `room_offset` within EASE_MS of room time,
    and the first display frame after it is the room's picture there, recorded as a reference."""
    ease = sc.state("s.explore.ease")
    pictures, t0 = ease["pictures"], ease["t0"]
    # Eased over several display frames, unless the browser offered the page none for a third of
    # the ease (a starved tab: one picture, then the end 683 ms of room time later, at load 16 on
    # 2 cores). A page that stopped drawing while the browser offered frames is no starved tab.
    drawn = [p["vsync"] for p in pictures] + [ease["end"]["vsync"]]
    offered = sc.page.evaluate("window.__offeredFrames")
    gap, a, b = max((b - a, a, b) for a, b in zip(drawn, drawn[1:])) if pictures else (0, 0, 0)
    skipped = [ts for ts in offered if a < ts < b]
    starved = gap > EASE_MS / 3 and not skipped
    assert len(pictures) >= 3 or (pictures and starved), (ease, gap, skipped)
    assert all(p["target"] == room_offset for p in pictures), ease
    times = [p["t"] for p in pictures]
    assert all(b > a for a, b in zip(times, times[1:])), f"room time stood still in the ease: {times}"
    assert times[0] == t0 and times[-1] - t0 < EASE_MS, ease
    offsets = [p["offset"] for p in pictures]
    assert offsets[0] == ease["from"], "the ease starts where the explorer was"
    direction = 1 if room_offset > ease["from"] else -1
    steps = [direction * (b - a) for a, b in zip(offsets, offsets[1:])]
    assert all(step > 0 for step in steps), f"not every eased picture went toward the room: {offsets}"
    assert all(direction * (room_offset - o) >= 0 for o in offsets), f"the ease passed the room's picture: {offsets}"
    assert ease["end"]["t"] - t0 >= EASE_MS and ease["end"]["offset"] == room_offset, ease
    return ease


def test_an_explorer_scrolls_its_own_table_and_eases_back_to_the_room(windows, page_server, room, artifacts):
    a = _open(windows, artifacts, page_server.base_url, room, "explorer")
    b = _open(windows, artifacts, page_server.base_url, room, "other")
    for sc in (a, b):
        wait_running(sc)
        sc.wait("s => s.viewers === 2 && s.explore.available")
    a.wait_idle()
    room_offset = b.frame()["offset"]
    b_drawn = record_total(b.page)
    inputs_before = _server_inputs(page_server)
    sent_before = a.state("s.inputsSent")

    a.page.click("#view-toggle")
    a.wait("s => s.explore.mode === 'explore'")
    for sc in (a, b):
        sc.wait("s => s.sharing.exploring === 1 && s.sharing.following === 1")
        assert _counts(sc) == "1 following · 1 exploring"
    assert a.page.locator("#view-toggle").inner_text() == "Follow the room"
    a_drawn = record_total(a.page)

    # The fling scrolls the explorer's own table far down; nothing reaches the room.
    a.fling()
    a.wait("s => s.lastFrame.offset > 300")
    a.wait_idle()
    explored = a.frame()["offset"]
    assert explored > room_offset + 300
    assert a.state("s.explore.inputs") >= 3 and a.state("s.inputsSent") == sent_before
    assert _server_inputs(page_server) == inputs_before, "an explorer's input reached the server"
    assert b.frame()["offset"] == room_offset
    assert {e["offset"] for e in b.page.evaluate("n => window.scrollcast.drawnSince(n)", b_drawn)} <= {room_offset}
    assert record_total(a.page) == a_drawn, "the explorer's own pictures were recorded as the room's"
    artifacts.screenshot(a.page, "exploring")

    # Follow: the picture eases back to the room's (at rest: a fixed target), then is the room's.
    a.page.click("#view-toggle")
    a.wait("s => s.explore.mode === 'follow' && s.explore.ease.end !== null")
    _assert_eased_back(a, room_offset)
    first = a.page.evaluate("n => window.scrollcast.drawnSince(n)", a_drawn)[0]
    assert first["resumed"] and first["offset"] == room_offset, first
    for sc in (a, b):
        sc.wait("s => s.sharing.exploring === 0")
        assert _counts(sc) == "2 following · 0 exploring"

    # The room's frames again: b flings, a's replica draws them, identical to every server frame.
    compared = a.state("s.replica.compared")
    # Made inside the page (ScrollcastPage.fling): Playwright's press and its moves are a browser
    # round trip apart, and a fresh-clone run once had them so far apart that the room held the
    # press long enough to lift a row (a row moved, the table stood at rest).
    b.fling()
    for sc in (b, a):
        sc.wait("s => s.lastFrame.offset > 300")
        sc.wait_idle()
    a.wait("(s, n) => s.replica.compared > n", compared)
    assert_no_mismatch(a, "explorer after following")
    assert a.frame()["offset"] == b.frame()["offset"] and a.frame()["rows"] == b.frame()["rows"]
    figures = picture_measures(a.page.evaluate("() => window.scrollcast.drawnSince(0)"), [])
    assert figures["wrong"]["wrong"] == 0, figures


def test_a_key_holder_calls_the_explorer_of_a_locked_room_back(windows, page_server, room, artifacts):
    holder = _open(windows, artifacts, page_server.base_url, room, "holder", "&replica=on&lock=1")
    holder.wait("s => s.driveMode === 'key'")
    watcher = _open(windows, artifacts, page_server.base_url, room, "watcher")
    watcher.wait("s => s.driveMode === 'watch'")
    wait_running(watcher)
    watcher.wait("s => s.explore.available")
    room_offset = holder.frame()["offset"]

    # A watcher may explore (keyboard-free, through window.scrollcast): its input is its own.
    assert watcher.page.evaluate("window.scrollcast.explore()") is True
    holder.wait("s => s.sharing.exploring === 1")
    watcher.fling()
    watcher.wait("s => s.lastFrame.offset > 300")
    watcher.wait_idle()
    assert watcher.state("s.refusedCount") == 0, "an explorer's input went to the locked room"
    assert not watcher.page.locator("#call-back").is_visible(), "a watcher may not call a locked room back"

    # Called back in the middle of a drag of its own table: that gesture ends there, its rest and
    # a wheel during the ease go nowhere (docs/design.md, "Explore and follow").
    sent = watcher.state("s.inputsSent")
    inputs_before = _server_inputs(page_server)
    watcher.drag(200, 600, 200, 450, steps=5, release=False)
    call = holder.page.locator("#call-back")
    call.wait_for(state="visible")
    call.click()
    mode = watcher.page.evaluate("""() => new Promise((done) => {
        const s = window.scrollcast.state;
        const look = () => {
          if (s.explore.mode !== 'ease') return requestAnimationFrame(look);
          document.getElementById('view').dispatchEvent(new WheelEvent('wheel', { deltaY: 300, cancelable: true }));
          done(s.explore.mode);
        };
        look(); })""")
    assert mode == "ease"
    watcher.move_to(200, 300, steps=3)
    watcher.release()
    watcher.wait("(s, v) => s.explore.mode === 'follow' && s.explore.ease?.end && s.sharing.calledBackBy === v",
                 holder.state("s.viewer"))
    ease = _assert_eased_back(watcher, room_offset)
    assert watcher.state("s.inputsSent") == sent and watcher.state("s.refusedCount") == 0
    assert _server_inputs(page_server) == inputs_before
    assert ease["by"] == holder.state("s.viewer")
    holder.wait("s => s.sharing.exploring === 0")
    call.wait_for(state="hidden")
    assert watcher.frame()["offset"] == room_offset


def test_a_page_without_its_engine_cannot_explore_and_says_why(windows, page_server, room, artifacts):
    off = _open(windows, artifacts, page_server.base_url, room, "replica-off", "&replica=off")
    bare_context = windows()
    bare_context.add_init_script("delete window.WebAssembly")
    bare = ScrollcastPage(artifacts.watch(bare_context.new_page(), "no-wasm"), page_server.base_url, room).open("&replica=on")
    for sc, why in ((off, "?replica=off"), (bare, "no WebAssembly")):
        sc.wait("s => s.viewers === 2")
        assert sc.page.locator("#view-toggle").is_disabled()
        assert why in sc.page.locator("#explore-reason").inner_text()
        assert why in sc.state("s.explore.reason")
        assert sc.page.evaluate("window.scrollcast.explore()") is False
        assert sc.state("s.explore.mode") == "follow" and sc.state("s.sharing.viewMode") == "follow"
        assert "You cannot explore" in sc.page.locator("#toast").inner_text()
    assert off.state("s.sharing.exploring") == 0
