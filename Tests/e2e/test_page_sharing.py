"""Sharing a room in the browser (docs/protocol.md, "Sharing"): a watcher of a locked room asks to
drive, the key holder's page lists the request and grants it, and the watcher's drag then moves the
room, as a third, raw WebSocket client's frames show; another request is refused, one left to lapse.
A page exploring or following changes the counts another page shows, and "Call everyone back"
brings the explorer back. The server's requests lapse after 5 s here (--drive-request-lifetime)."""

from __future__ import annotations

import json
import time

import pytest

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    TRACK_SOCKETS, ScrollcastPage, artifacts, browser_type_launch_args, room,
)
from raw_websocket import PING, PONG, TEXT, RawWebSocket
from server_helpers import RunningServer

LIFETIME_S = 5


@pytest.fixture(scope="module")
def sharing_server():
    """One server for this module, whose requests to drive lapse after LIFETIME_S."""
    server = RunningServer("--drive-request-lifetime", str(LIFETIME_S))
    yield server
    server.stop()


class RawViewer:
    """A plain WebSocket viewer of `room` (version 1) that reads every message the room sends it."""

    def __init__(self, server: RunningServer, room: str):
        self.ws = RawWebSocket(server.port)
        assert self.ws.upgraded
        self.ws.send_text(json.dumps({"type": "join", "room": room, "client": "test-raw/1"}))
        self.messages: list[dict] = []

    def wait_for(self, predicate, timeout: float = 15.0) -> dict:
        deadline = time.monotonic() + timeout
        for message in self.messages:
            if predicate(message):
                return message
        while time.monotonic() < deadline:
            opcode, payload = self.ws.read_frame(timeout=max(0.1, deadline - time.monotonic()))
            if opcode == PING:
                self.ws.send_frame(PONG, payload)
            if opcode != TEXT:
                continue
            message = json.loads(payload)
            self.messages.append(message)
            if predicate(message):
                return message
        raise AssertionError("the raw viewer never got the message it waited for")

    def close(self):
        self.ws.close()


def _open(browser, artifacts, server, room: str, label: str, extra: str = "", init_script: str | None = None) -> ScrollcastPage:
    context = browser.new_context()
    if init_script:
        context.add_init_script(init_script)
    page = artifacts.watch(context.new_page(), label)
    return ScrollcastPage(page, server.base_url, room).open(extra)


def _request_item(page: ScrollcastPage, viewer: str):
    return page.page.locator(f'#drive-requests li[data-viewer="{viewer}"]')


@pytest.mark.long(23)
def test_a_key_holder_grants_a_watcher_the_drive_refuses_another_and_lets_one_lapse(
        browser, sharing_server, room, artifacts):
    creator = _open(browser, artifacts, sharing_server, room, "creator", "&lock=1")
    creator.wait("s => s.driveMode === 'key'")
    watcher = _open(browser, artifacts, sharing_server, room, "watcher", init_script=TRACK_SOCKETS)
    watcher.wait("s => s.driveMode === 'watch'")
    raw = RawViewer(sharing_server, room)
    raw.wait_for(lambda m: m["type"] == "snapshot")
    watcher_id = watcher.state("s.viewer")
    assert watcher.page.locator("#ask-drive").is_visible()
    assert not creator.page.locator("#ask-drive").is_visible(), "a key holder has nothing to ask"

    # The watcher asks; the key holder's page lists the request and grants it.
    watcher.page.click("#ask-drive")
    watcher.wait("s => s.sharing.asking")
    item = _request_item(creator, watcher_id)
    item.wait_for(state="visible")
    assert "asks to drive" in item.inner_text()
    artifacts.screenshot(creator.page, "request-listed")
    item.locator("button.grant").click()
    watcher.wait("s => s.driveMode === 'granted' && s.sharing.lastAnswer === 'granted'")
    creator.wait("(s, v) => s.sharing.requests.length === 0 && s.sharing.granted.includes(v)", watcher_id)
    assert "key holder let you" in watcher.page.locator("#drive-status").inner_text()
    assert not watcher.page.locator("#ask-drive").is_visible()

    # The watcher's drag moves the room: the raw client's frames name its input and move.
    watcher.wait_idle()
    start = watcher.frame()["offset"]
    watcher.drag(200, 700, 200, 400)
    watcher.wait("(s, b) => s.lastFrame.offset > b + 100 && s.ownInputsApplied > 0", start)
    assert watcher.state("s.refusedCount") == 0
    moved = raw.wait_for(lambda m: m["type"] == "frame" and (m.get("input") or {}).get("viewer") == watcher_id
                         and m["offset"] > start + 100)
    assert moved["offset"] > start + 100

    # A dropped connection resumes with its grant and still drives; the grant is not the key.
    watcher.page.evaluate("window.__sockets.at(-1).close()")
    watcher.wait("s => s.joined && s.resumes >= 1 && s.driveMode === 'granted'")
    rejoin = watcher.page.evaluate("window.__joins.at(-1)")
    assert len(rejoin["resume"]["grant"]) == 64 and "driverKey" not in rejoin
    new_id = watcher.state("s.viewer")
    assert new_id != watcher_id
    watcher.wait_idle()
    start = watcher.frame()["offset"]
    watcher.drag(200, 400, 200, 650)
    raw.wait_for(lambda m: m["type"] == "frame" and (m.get("input") or {}).get("viewer") == new_id
                 and m["offset"] < start - 100)
    assert watcher.state("s.refusedCount") == 0
    raw.close()

    # Another watcher asks and is refused: it still only watches.
    other = _open(browser, artifacts, sharing_server, room, "refused")
    other.wait("s => s.driveMode === 'watch'")
    other_id = other.state("s.viewer")
    other.page.click("#ask-drive")
    _request_item(creator, other_id).locator("button.deny").click()
    other.wait("s => s.sharing.lastAnswer === 'denied' && !s.sharing.asking && s.driveMode === 'watch'")
    other.wait_idle()
    other.drag(200, 700, 200, 400)
    other.wait("s => s.refusedCount >= 1 && s.lastRefused.code === 'locked'")

    # Its next request goes unanswered and lapses, on the key holder's page too.
    other.page.click("#ask-drive")
    _request_item(creator, other_id).wait_for(state="visible")
    other.wait("s => s.sharing.lastAnswer === 'expired'", timeout=(LIFETIME_S + 5) * 1000)
    creator.wait("s => s.sharing.requests.length === 0")
    assert not other.page.locator("#ask-drive").is_disabled(), "it may ask again"
    artifacts.screenshot(other.page, "request-lapsed")


def test_exploring_changes_the_counts_and_everyone_is_called_back(browser, sharing_server, room, artifacts):
    a = _open(browser, artifacts, sharing_server, room, "caller")
    # Exploring needs the page's own engine (test_page_explore.py: without it the page says why).
    b = _open(browser, artifacts, sharing_server, room, "explorer", "&replica=on")
    a.wait("s => s.viewers === 2")
    b.wait("s => s.explore.available")
    assert a.page.locator("#view-counts").inner_text() == "2 following · 0 exploring"

    b.page.click("#view-toggle")
    b.wait("s => s.sharing.viewMode === 'explore'")
    a.wait("s => s.sharing.exploring === 1 && s.sharing.following === 1")
    assert a.page.locator("#view-counts").inner_text() == "1 following · 1 exploring"
    assert b.page.locator("#view-toggle").inner_text() == "Follow the room"

    # Anyone may call everyone back in an open room; the explorer follows and is counted back.
    call = a.page.locator("#call-back")
    call.wait_for(state="visible")
    call.click()
    b.wait("(s, v) => s.sharing.viewMode === 'follow' && s.sharing.calledBackBy === v", a.state("s.viewer"))
    a.wait("s => s.sharing.exploring === 0 && s.sharing.following === 2")
    call.wait_for(state="hidden")
    assert a.page.locator("#view-counts").inner_text() == "2 following · 0 exploring"
