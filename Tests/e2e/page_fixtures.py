"""Fixtures and helpers for the page's browser tests (Tests/e2e/test_page_*.py).

The server under test is the real binary in $SCROLLCAST_BIN, started on a free port with
Public/ as its static root; it prints "scrollcast listening on http://127.0.0.1:PORT" first.
Screenshots and console logs go to $SCROLLCAST_ARTIFACTS.
"""

from __future__ import annotations

import math
import os
import re
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from server_helpers import REPO, RunningServer

# A pointer gesture on the canvas from `start` to `end` (client px) in `steps` moves, each event
# 8 ms after the last by the page's clock (a busy wait: a timer could come late on a busy machine).
FLING_IN_PAGE = """([start, end, steps]) => {
    const canvas = document.getElementById('view');
    const send = (type, x, y) => canvas.dispatchEvent(new PointerEvent(type, {
        pointerId: 1, pointerType: 'mouse', isPrimary: true, button: 0, buttons: type === 'pointerup' ? 0 : 1,
        clientX: x, clientY: y, bubbles: true, cancelable: true }));
    const pause = () => { const until = performance.now() + 8; while (performance.now() < until) {} };
    send('pointerdown', start[0], start[1]);
    for (let i = 1; i <= steps; i += 1) {
        pause();
        send('pointermove', start[0] + (end[0] - start[0]) * i / steps, start[1] + (end[1] - start[1]) * i / steps);
    }
    pause();
    send('pointerup', end[0], end[1]);
}"""

# The hold's slop (pt), RowMoving.slop in Sources/ScrollEngine/Effects/RowMoving.swift: a press
# that moves no further for RowMoving.liftDelay lifts a row.
HOLD_SLOP_PT = 10

# A drag's pointer events made inside the page (ScrollcastPage.drag): `points` in client
# pixels, the press and moves up to `atOnce` in one task, the rest `gapMs` apart.
POINTER_IN_PAGE = """async ([points, atOnce, release, gapMs]) => {
    const canvas = document.getElementById('view');
    const send = (type, [x, y]) => { window.__pointerAt = [x, y]; canvas.dispatchEvent(new PointerEvent(type, {
        pointerId: 1, pointerType: 'mouse', isPrimary: true, button: 0, buttons: type === 'pointerup' ? 0 : 1,
        clientX: x, clientY: y, bubbles: true, cancelable: true })); };
    const pause = () => new Promise((done) => setTimeout(done, gapMs));
    send('pointerdown', points[0]);
    for (let i = 1; i < points.length; i += 1) {
        if (i > atOnce) await pause();
        send('pointermove', points[i]);
    }
    if (release) { await pause(); send('pointerup', points.at(-1)); }
}"""
POINTER_MOVE_IN_PAGE = """async ([to, steps, gapMs]) => {
    const canvas = document.getElementById('view');
    const from = window.__pointerAt;
    for (let i = 1; i <= steps; i += 1) {
        await new Promise((done) => setTimeout(done, gapMs));
        const x = from[0] + (to[0] - from[0]) * i / steps, y = from[1] + (to[1] - from[1]) * i / steps;
        window.__pointerAt = [x, y];
        canvas.dispatchEvent(new PointerEvent('pointermove', { pointerId: 1, pointerType: 'mouse', isPrimary: true,
            button: 0, buttons: 1, clientX: x, clientY: y, bubbles: true, cancelable: true }));
    }
}"""
POINTER_UP_IN_PAGE = """() => {
    const [x, y] = window.__pointerAt;
    document.getElementById('view').dispatchEvent(new PointerEvent('pointerup', { pointerId: 1, pointerType: 'mouse',
        isPrimary: true, button: 0, buttons: 0, clientX: x, clientY: y, bubbles: true, cancelable: true }));
}"""

ARTIFACTS = Path(os.environ.get("SCROLLCAST_ARTIFACTS", REPO / "test-artifacts"))


# The join a WebSocket URL carries (docs/protocol.md, "Joining in the upgrade"), or null: JS for
# init scripts that record a page's joins.
URL_JOIN_JS = """(url) => { const join = new URL(url, location.href).searchParams.get("join"); return join === null ? null : JSON.parse(join); }"""

# Records a page's sockets and the joins it makes (in a socket's URL, or as a message: `__joins`;
# the messages alone: `__joinMessages`), so a test can drop the connection and check what the
# rejoin carried: an init script for the contexts that need it (context.add_init_script).
TRACK_SOCKETS = """
(() => {
  const Native = window.WebSocket;
  const urlJoin = %s;
  window.__sockets = [];
  window.__joins = [];
  window.__joinMessages = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.__sockets.push(this);
      const join = urlJoin(args[0]);
      if (join) window.__joins.push(join);
    }
    send(data) {
      try { const m = JSON.parse(data); if (m.type === "join") { window.__joins.push(m); window.__joinMessages.push(m); } } catch {}
      return super.send(data);
    }
  };
})();
""" % URL_JOIN_JS


def fetched_paths(page, wanted: list[str], timeout: float = 5000) -> list[str]:
    """The paths the page fetched from its own origin's port (its resource timing entries), once
    every one of `wanted` is among them or `timeout` ms have passed. An entry is written only once
    its body has come, so a fetch that began is waited for rather than read at one instant."""
    own = ("() => performance.getEntriesByType('resource').map(e => new URL(e.name))"
           ".filter(u => u.port === location.port).map(u => u.pathname)")
    try:
        page.wait_for_function(f"(wanted) => wanted.every(p => ({own})().includes(p))", arg=wanted, timeout=timeout)
    except PlaywrightTimeoutError:
        pass   # the caller's assertion names what was fetched
    return page.evaluate(own)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Debian's Chromium; Playwright's own browsers are not installed here."""
    return {**browser_type_launch_args, "executable_path": "/usr/bin/chromium"}


@pytest.fixture(scope="session")
def page_server():
    """One server for the page tests that do not restart it."""
    server = RunningServer()
    yield server
    server.stop()


@pytest.fixture()
def own_page_server():
    """A server this test alone may stop and restart."""
    server = RunningServer()
    yield server
    server.stop()


@pytest.fixture()
def room(request) -> str:
    """A fresh room per test so tests never see each other's scrolling."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", request.node.name)[:40]
    return f"{name}-{uuid.uuid4().hex[:8]}"


@pytest.fixture()
def artifacts(request):
    """Saves screenshots and, at the end of the test, every watched page's console log."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    recorder = ArtifactRecorder(request.node.name)
    yield recorder
    recorder.write_logs()


class ArtifactRecorder:
    def __init__(self, test_name: str):
        self.test_name = re.sub(r"[^A-Za-z0-9_.-]", "_", test_name)
        self.logs: dict[str, list[str]] = {}

    def watch(self, page, label: str = "page"):
        lines = self.logs.setdefault(label, [])
        page.on("console", lambda msg: lines.append(f"[{msg.type}] {msg.text}"))
        page.on("pageerror", lambda err: lines.append(f"[pageerror] {err}"))
        return page

    def screenshot(self, page, name: str) -> Path:
        path = ARTIFACTS / f"{self.test_name}--{name}.png"
        page.screenshot(path=str(path))
        return path

    def write_logs(self):
        for label, lines in self.logs.items():
            (ARTIFACTS / f"{self.test_name}--{label}-console.log").write_text("\n".join(lines) + "\n")


class ScrollcastPage:
    """A Playwright page showing Scrollcast, with waits on window.scrollcast.state."""

    def __init__(self, page, base_url: str, room: str):
        self.page = page
        self.base_url = base_url
        self.room = room

    def open(self, extra_query: str = "") -> "ScrollcastPage":
        # These tests check the page drawing server frames (as before the engine came to the
        # page); tests of the replica ask for it (`&replica=on`, test_page_replica*.py).
        if "replica=" not in extra_query:
            extra_query += "&replica=off"
        self.page.goto(f"{self.base_url}/?room={self.room}{extra_query}")
        self.wait("s => s.joined && s.framesDrawn >= 1 && s.lastFrame !== null")
        self.page.wait_for_function("window.scrollcast.state.images.ready")
        return self

    def state(self, expression: str = "s"):
        return self.page.evaluate(f"(s => ({expression}))(window.scrollcast.state)")

    def frame(self) -> dict:
        return self.page.evaluate("window.scrollcast.state.lastFrame")

    def insets(self) -> dict:
        return self.page.evaluate("window.scrollcast.scene.insets")

    def wait(self, predicate: str, arg=None, timeout: float = 15000):
        """Waits until `predicate(state, arg)` (a JS arrow function) is truthy. The page object may
        not exist yet: the modules' fallback (no bundle) is imported after the load event."""
        try:
            self.page.wait_for_function(
                f"([arg]) => window.scrollcast !== undefined && ({predicate})(window.scrollcast.state, arg)",
                arg=[arg], timeout=timeout)
        except PlaywrightTimeoutError:
            raise AssertionError(f"waited {timeout / 1000:.0f} s for {predicate} ({arg!r}); the page: {self.summary()}") from None

    def summary(self) -> dict:
        """What a timed-out wait reports: enough of the page's state to tell why it never came."""
        return self.page.evaluate("""() => { const s = window.scrollcast && window.scrollcast.state;
            if (!s) return 'no window.scrollcast';
            const f = s.lastFrame;
            return { joined: s.joined, resumes: s.resumes, snapshots: s.snapshots, framesDrawn: s.framesDrawn,
                     lastReceivedSeq: s.lastReceivedSeq, reconnecting: s.reconnecting, driveMode: s.driveMode,
                     rowMoves: s.rowMoves, inputsByKind: s.inputsByKind, ownInputsApplied: s.ownInputsApplied, canvas: s.canvas,
                     latency: s.latency,   // input to frame (ms): a room that got the inputs late shows here
                     frame: f && { seq: f.seq, t: f.t, phase: f.phase, animating: f.animating, offset: f.offset,
                                   lifted: f.lifted === undefined ? undefined : f.lifted !== null },
                     replica: s.replica && { enabled: s.replica.enabled, running: s.replica.running,
                                             starts: s.replica.starts, compared: s.replica.compared,
                                             mismatches: s.replica.mismatches, error: s.replica.error ?? null,
                                             engineRestarts: s.replica.engineRestarts ?? 0 } }; }""")

    def wait_idle(self, timeout: float = 20000):
        """Waits until the drawn frame is at rest: idle phase (no finger down) and nothing animating."""
        self.wait("s => s.lastFrame && s.lastFrame.animating === false && s.lastFrame.phase === 'idle'",
                  timeout=timeout)

    def wait_settled(self, timeout: float = 20000):
        """Waits until the page has drawn its own last input (a frame naming it or a later one of
        its own), then rest. `wait_idle` alone can read a rest drawn before a key or a wheel just
        sent: a fresh-clone run went on 7 ms after PageDown and 27 ms after Home, and pressed a
        row while the room still scrolled home; the press stopped the scroll, and no row lifted."""
        self.wait("s => s.lastInputId === 0 || (s.lastFrame && s.lastFrame.input && s.lastFrame.input.viewer === s.viewer"
                  " && s.lastFrame.input.id >= s.lastInputId)", timeout=timeout)
        self.wait_idle(timeout)

    def client_point(self, x: float, y: float) -> tuple[float, float]:
        p = self.page.evaluate("([x, y]) => window.scrollcast.clientPoint(x, y)", [x, y])
        return p["x"], p["y"]

    def pixels(self) -> bytes:
        """The canvas's device pixels (RGBA)."""
        data = self.page.evaluate(
            """() => { const c = document.getElementById('view');
                       const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                       let s = ''; for (let i = 0; i < d.length; i += 4096) s += String.fromCharCode.apply(null, d.subarray(i, i + 4096));
                       return btoa(s); }""")
        import base64
        return base64.b64decode(data)

    def region_stats(self, x: float, y: float, w: float, h: float) -> dict:
        """Mean luminance and distinct colours of a viewport-pt rectangle of the canvas."""
        return self.page.evaluate(
            """([x, y, w, h]) => {
                 const c = document.getElementById('view');
                 const k = c.width / window.scrollcast.state.lastFrame.viewport.width;
                 const d = c.getContext('2d').getImageData(Math.round(x * k), Math.round(y * k),
                                                           Math.max(1, Math.round(w * k)), Math.max(1, Math.round(h * k))).data;
                 let sum = 0; const colours = new Set();
                 for (let i = 0; i < d.length; i += 4) {
                   sum += 0.2126 * d[i] + 0.7152 * d[i + 1] + 0.0722 * d[i + 2];
                   colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
                 }
                 return { luminance: sum / (d.length / 4), colours: colours.size };
               }""", [x, y, w, h])

    def drag(self, x0: float, y0: float, x1: float, y1: float, steps: int = 20, release: bool = True,
             gap_ms: float = 16):
        """A pointer drag between viewport points, made inside the page (POINTER_IN_PAGE): the
        press and the moves that take it out of the hold's slop in one task, the other moves
        `gap_ms` apart by the page's timers. Playwright's press and moves are a browser round trip
        each, and on a loaded machine (fresh-clone runs, three times) the first move came over
        half a second after the press: the room lifted a row instead of scrolling. Without
        `release` the pointer stays down for `move_to` and `release`."""
        points = [(x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps) for i in range(steps + 1)]
        # The first point past the slop (HOLD_SLOP_PT), in view points.
        at_once = next((i for i, (x, y) in enumerate(points) if math.hypot(x - x0, y - y0) > HOLD_SLOP_PT), steps)
        self.page.evaluate(POINTER_IN_PAGE, [[list(self.client_point(x, y)) for x, y in points], at_once, release, gap_ms])

    def move_to(self, x: float, y: float, steps: int = 10, gap_ms: float = 16):
        """Moves the pointer a `drag` left down to a viewport point, `gap_ms` a step."""
        self.page.evaluate(POINTER_MOVE_IN_PAGE, [list(self.client_point(x, y)), steps, gap_ms])

    def release(self):
        """Lifts the pointer a `drag` left down, where it is."""
        self.page.evaluate(POINTER_UP_IN_PAGE)

    def mouse_drag(self, x0: float, y0: float, x1: float, y1: float, steps: int = 20):
        """A drag with Playwright's real mouse, for the measures that time the browser's own input
        events (docs/measures.md); on a loaded machine it can become a long press (see `drag`)."""
        mouse = self.page.mouse
        mouse.move(*self.client_point(x0, y0))
        mouse.down()
        mouse.move(*self.client_point(x1, y1), steps=steps)
        mouse.up()

    def quick_drag(self, x0: float, y0: float, x1: float, y1: float, steps: int = 6):
        """A drag between viewport points dispatched inside the page, each event 8 ms after the last
        by the page's own clock (FLING_IN_PAGE): released in motion however busy the machine is."""
        start, end = list(self.client_point(x0, y0)), list(self.client_point(x1, y1))
        self.page.evaluate(FLING_IN_PAGE, [start, end, steps])

    def fling(self, x0: float = 200, y0: float = 720, x1: float = 200, y1: float = 140, steps: int = 6,
              attempts: int = 3) -> int:
        """A fast drag released in motion; returns (the tries it took) once the drawn picture
        decelerates or bounces. The gesture is dispatched inside the page, its events 8 ms apart
        by the page's own clock: Playwright's moves are one browser round trip each, and on a busy
        machine they came so far apart that the finger had all but stopped when it lifted, which
        the physics (rightly) takes for a drag with no fling. A try the page still takes for a
        drag is let come to rest and made again, at most `attempts` times."""
        for attempt in range(1, attempts + 1):
            self.quick_drag(x0, y0, x1, y1, steps)
            try:
                self.wait("s => s.lastFrame.phase === 'decelerating' || s.lastFrame.phase === 'bouncing'",
                          timeout=4000 if attempt < attempts else 15000)
                return attempt
            except AssertionError:
                if attempt == attempts:
                    raise
                self.wait_idle()
        raise AssertionError("unreachable")


def changed_fraction(a: bytes, b: bytes) -> float:
    """Fraction of pixels whose RGBA differ between two equally sized captures."""
    assert len(a) == len(b), "canvas size changed between captures"
    n = len(a) // 4
    diff = sum(1 for i in range(0, len(a), 4) if a[i:i + 4] != b[i:i + 4])
    return diff / n


def same_frame_on_both(a: ScrollcastPage, b: ScrollcastPage, predicate: str):
    """Waits until both pages have drawn the same frame, one that satisfies `predicate`."""
    a.wait(predicate)
    b.wait(predicate)
    seq = max(a.state("s.lastFrame.seq"), b.state("s.lastFrame.seq"))
    for page in (a, b):
        page.wait("(s, q) => s.lastFrame.seq >= q && s.framesDrawn > 0", seq)
    assert a.state("s.lastFrame.seq") == b.state("s.lastFrame.seq")


def assert_same_pictures_through_a_fling_and_a_hold(a: ScrollcastPage, b: ScrollcastPage, artifacts,
                                                    labels: tuple[str, str],
                                                    flinger: ScrollcastPage, holder: ScrollcastPage):
    """Two idle pages of one room: `flinger` flings down the long table (momentum, many rows new
    to the room, rest), then `holder` holds a drag; after each, both pages show the same frame
    and their canvases match pixel for pixel. Screenshots are named after `labels` (a's, b's)."""
    flinger.fling()
    a.wait("s => s.lastFrame.offset > 300")
    b.wait("s => s.lastFrame.offset > 300")
    a.wait_idle()
    b.wait_idle()
    same_frame_on_both(a, b, "s => s.lastFrame.animating === false")
    assert a.frame() == b.frame()
    artifacts.screenshot(a.page, f"{labels[0]}-after-fling")
    artifacts.screenshot(b.page, f"{labels[1]}-after-fling")
    assert changed_fraction(a.pixels(), b.pixels()) == 0

    # The indicator and the info panel with its texts stay up while the finger does.
    holder.drag(200, 600, 200, 380, steps=10, release=False)
    held = "s => s.lastFrame.animating === false && s.lastFrame.phase === 'tracking'"
    same_frame_on_both(a, b, held)
    frame = a.frame()
    assert frame == b.frame()
    assert (frame["panel"] or {}).get("title"), frame
    artifacts.screenshot(a.page, f"{labels[0]}-held")
    artifacts.screenshot(b.page, f"{labels[1]}-held")
    assert changed_fraction(a.pixels(), b.pixels()) == 0
    holder.release()
    a.wait_idle()
    b.wait_idle()
