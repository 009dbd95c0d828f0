"""When the replica cannot run (docs/wasm.md, "When the replica cannot run"), in real Chromium
against the real server: the engine's module fails to load (a 404, or bytes that are not
WebAssembly), the engine traps (a test hook), or a server frame differs from the replica's (a
test hook corrupting it). Each ends with the page drawing the server's frames, right by the
measures (docs/measures.md); a page without an engine stops asking for `applied` messages and
keeps none; after a trap the page makes the engine again and runs it, after a mismatch it
starts again at the next rest."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import pytest

from measures_session import FLING, measured, record_total
from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)
from replica_session import assert_no_mismatch, replica, wait_running

APPLIED = 0x09   # the `applied` message's type byte in version 2 (docs/protocol.md)


class Sockets:
    """Every WebSocket the page opened: its join, and how many `applied` messages it received."""

    def __init__(self, page):
        self.sockets: list[dict] = []
        page.on("websocket", self._watch)

    def _watch(self, ws):
        # The join goes in the socket's URL (docs/protocol.md, "Joining in the upgrade") or as a message.
        in_url = parse_qs(urlparse(ws.url).query).get("join")
        entry = {"join": json.loads(in_url[0]) if in_url else None, "applied": 0}
        self.sockets.append(entry)

        def sent(payload):
            if isinstance(payload, str) and '"join"' in payload:
                entry["join"] = json.loads(payload)

        def received(payload):
            if isinstance(payload, bytes) and payload[:1] == bytes([APPLIED]):
                entry["applied"] += 1
            elif isinstance(payload, str) and '"applied"' in payload:
                entry["applied"] += 1
        ws.on("framesent", sent)
        ws.on("framereceived", received)

    def asked(self) -> list[bool]:
        """Whether each join (in order) asked for `applied` messages."""
        return [bool(s["join"] and s["join"].get("inputs")) for s in self.sockets if s["join"]]


def serve(body: bytes | None):
    """A route handler answering the module's request with a 404 (None) or with `body`."""
    def handler(route, _request=None):
        if body is None:
            route.fulfill(status=404, body="gone")
        else:
            route.fulfill(status=200, body=body, headers={"Content-Type": "application/wasm"})
    return handler


def fling_and_rest(sc, trap: bool = False) -> tuple[int, int]:
    """Flings and waits for rest; with `trap`, the engine traps as the finger lifts, so the
    fling is drawn without it until fresh instances start at the rest."""
    sc.drag(*FLING, steps=6)
    start = record_total(sc.page)   # from the release (a driver's own drag can be drawn wrong: docs/measures.md)
    if trap:
        sc.page.evaluate("window.scrollcast.test.trap()")
    sc.wait_idle()
    return start, record_total(sc.page)


def key_and_rest(sc) -> tuple[int, int]:
    """Scrolls a page down with the keyboard (an animation of a few tenths of a second) as the
    engine traps, and waits for rest."""
    start = record_total(sc.page)
    sc.page.focus("#view")
    # Armed before the key: a scroll that ends before the hook's call reaches the page (a driver's
    # clock leads the room, the loaded machine is slow) would otherwise never call the engine again.
    sc.page.evaluate("window.scrollcast.test.trap()")
    sc.page.keyboard.press("PageDown")
    sc.wait_idle()
    return start, record_total(sc.page)


def until(page, condition, what: str, timeout_ms: float = 15000):
    """Polls `condition` (a Python callable on what the test's listeners saw) until it holds."""
    waited = 0
    while not condition():
        assert waited < timeout_ms, f"no {what} within {timeout_ms} ms"
        page.wait_for_timeout(50)   # lets Playwright deliver the page's events; a poll, not a sleep standing in for one
        waited += 50


def assert_server_frames_drawn_right(sc, span, label: str):
    """The span's display frames show the server's frames (not the replica's), judged right."""
    figures, _, entries, _ = measured(sc.page, span)
    shown = [e for e in entries if e["animating"]]
    assert len(shown) > 10, f"{label}: the fling was not drawn: {figures}"
    assert not any(e["replica"] for e in shown), f"{label}: the replica drew while it could not run"
    assert figures["wrong"]["wrong"] == 0 and figures["wrong"]["judged"] > 10, (label, figures["wrong"])
    assert sc.state("s.lastFrame.seq") == sc.state("s.lastReceivedSeq"), f"{label}: not the newest server frame"


@pytest.mark.alone
def test_an_engine_that_does_not_load_leaves_server_frames_and_nothing_asked(browser, page_server, room, artifacts):
    for label, body in (("404", None), ("garbage", b"this is not WebAssembly")):
        page = artifacts.watch(browser.new_context().new_page(), label)
        page.route("**/scrollcast-engine.wasm*", serve(body))   # any version
        sockets = Sockets(page)
        sc = ScrollcastPage(page, page_server.base_url, f"{room}-{label}").open("&replica=on")
        sc.wait("s => s.replica.enabled === false")
        # A join that asked is followed by one that does not (resuming where it was, if joined).
        until(page, lambda: sockets.asked() and sockets.asked()[-1] is False, "a join without `applied`")
        sc.wait("s => s.joined")
        assert sockets.asked() in ([False], [True, False]), sockets.sockets
        span = fling_and_rest(sc)
        assert_server_frames_drawn_right(sc, span, label)
        assert sockets.sockets[-1]["applied"] == 0, "asked for nothing, it got `applied` messages"
        assert page.evaluate("window.scrollcast.test.held()") == 0
        error = replica(sc)["error"]
        assert ("404" in error) if body is None else ("CompileError" in error or "WebAssembly" in error), error
        page.context.close()


@pytest.mark.alone
def test_an_engine_that_traps_is_made_again_and_runs_until_it_traps_too_often(page, page_server, room, artifacts):
    artifacts.watch(page)
    sockets = Sockets(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open("&replica=on")
    wait_running(sc)
    restarts = page.evaluate("async () => (await import('/js/replica/setup.js')).ENGINE_RESTARTS")
    for trap in range(1, restarts + 1):
        # The first trap as a fling starts; the others as a key scroll does (shorter).
        span = fling_and_rest(sc, trap=True) if trap == 1 else key_and_rest(sc)
        r = replica(sc)
        assert r["engineRestarts"] == trap and "trapped" in r["error"], r
        # Nothing held after the trap; but fresh instances, once attached, keep what follows the
        # newest server frame until they start at the rest (a fresh-clone run read 1 at rest,
        # before the start): so what is held must come back to none, not be none at once.
        sc.wait("() => window.scrollcast.test.held() === 0")
        # Server frames, then fresh instances from a rest: every picture judged is right, up to
        # the fresh start. A start at a rest of the room from before the driver's release (its
        # clock leads the room) drew that rest, 13 pictures up to 1,595 pt off, until the fling
        # came a lead late; its stale picture at rest also ended wait_idle's span at once.
        sc.wait("(s, n) => s.replica.running && s.replica.starts === n", trap + 1)
        span = (span[0], record_total(page))
        figures, _, entries, _ = measured(page, span)
        wrong = [e for e in entries if e["room"] is not None and abs(e["offset"] - e["room"]) > 0.5]
        assert figures["wrong"]["wrong"] == 0, (trap, wrong, replica(sc))
        assert trap > 1 or figures["wrong"]["judged"] >= 30, (figures, "the fling's pictures, judged")
        if trap > 1:
            continue
        compared = replica(sc)["compared"]
        span = fling_and_rest(sc)
        sc.wait("(s, c) => s.replica.compared > c + 10", compared)
        assert_no_mismatch(sc, f"after trap {trap}")
        assert any(e["replica"] for e in measured(page, span)[2]), "the engine made again did not draw"
    assert sockets.asked() == [True], "while the engine can be made again, the page keeps asking"

    # One trap too many: server frames for good, and the page joins again without `applied`.
    key_and_rest(sc)
    sc.wait("s => s.resumes >= 1 && s.joined")
    assert sockets.asked() == [True, False], sockets.sockets
    assert not replica(sc)["enabled"]
    span = fling_and_rest(sc)
    assert_server_frames_drawn_right(sc, span, "past the restarts")
    assert sockets.sockets[-1]["applied"] == 0 and page.evaluate("window.scrollcast.test.held()") == 0


def test_a_mismatch_goes_back_to_server_frames_then_starts_again_at_rest(page, page_server, room, artifacts):
    artifacts.watch(page)
    sockets = Sockets(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open("&replica=on")
    wait_running(sc)
    assert page.evaluate("window.scrollcast.test.corrupt()") is True
    span = fling_and_rest(sc)
    r = replica(sc)
    assert r["mismatches"] == 1 and r["enabled"], r
    figures, _, entries, _ = measured(page, span)
    motion = [e for e in entries if e["animating"]]
    assert not motion[-1]["replica"], "after the mismatch the fling went on in server frames"
    assert all(e["room"] is not None for e in motion if not e["replica"])
    sc.wait("s => s.replica.running && s.replica.starts === 2")
    assert sockets.asked() == [True], "a mismatch keeps asking for `applied`: the replica starts again from them"

    compared = replica(sc)["compared"]
    span = fling_and_rest(sc)
    sc.wait("(s, c) => s.replica.compared > c + 10", compared)
    r = replica(sc)
    assert r["mismatches"] == 1 and r["compared"] - r["identical"] == 1, r
    assert page.evaluate("window.scrollcast.test.held()") == 0
    assert any(e["replica"] for e in measured(page, span)[2]), "the replica did not draw again"
