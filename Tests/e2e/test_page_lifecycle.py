"""The page's lifecycle (docs/design.md, "The page"): importing its modules starts nothing; the
one page object (Public/js/page.js) starts on `start()`, and `destroy()` ends all it began: its
socket closes with 1000 and is not resumed, its animation-frame loop stops mid-fling, every
listener it added goes (a wheel after it is neither taken nor sent), and no timer, interval or
resize observer is left, also when it comes while the page reconnects. A new page started
after it works. Real Chromium, the real server, the real link emulator for the reconnect.

The probe below (an init script) counts what the page's own JavaScript starts, by wrapping the
browser's APIs in the page's world: each count is first shown to read what a running page does."""

from __future__ import annotations

import pytest

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room)
from server_helpers import PUBLIC

PROBE = r"""
(() => {
  const add = EventTarget.prototype.addEventListener, remove = EventTarget.prototype.removeEventListener;
  const nativeFrame = window.requestAnimationFrame.bind(window);
  const probe = window.__probe = {
    sockets: [], joins: [], closes: [], sends: 0, framesAsked: 0, framesRan: 0, fetches: 0,
    listeners: [], intervals: new Set(), timeouts: new Set(), observed: new Map(),
    /** Resolves after `n` display frames of the probe's own (not counted). */
    frames: (n) => new Promise((done) => { const step = (k) => k === 0 ? done() : nativeFrame(() => step(k - 1)); step(n); }),
  };
  const label = (t) => t === window ? "window" : t === document ? "document"
    : t instanceof Element ? `${t.localName}${t.id ? "#" + t.id : ""}` : t instanceof MediaQueryList ? `media ${t.media}` : t.constructor.name;
  const capture = (o) => typeof o === "boolean" ? o : Boolean(o?.capture);
  const forget = (target, type, listener, c) => {
    const i = probe.listeners.findIndex((r) => r.target === target && r.type === type && r.listener === listener && r.capture === c);
    if (i >= 0) probe.listeners.splice(i, 1);
  };
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    const c = capture(options), signal = options?.signal;
    // Only the page's own scripts' listeners (Playwright adds some of its own to check its clicks).
    const script = /\/(?:js|bundle)\/[\w\/.-]+\.js/.exec(new Error().stack)?.[0];
    if (script && listener && !signal?.aborted && !probe.listeners.some((r) => r.target === this && r.type === type && r.listener === listener && r.capture === c)) {
      // Upload's form (upload.js) runs apart from the page and is not the page's to remove.
      const record = { target: this, type, listener, capture: c, where: label(this), upload: script === "/js/upload.js" };
      probe.listeners.push(record);
      if (signal) add.call(signal, "abort", () => forget(this, type, listener, c), { once: true });
    }
    return add.call(this, type, listener, options);
  };
  EventTarget.prototype.removeEventListener = function (type, listener, options) {
    forget(this, type, listener, capture(options));
    return remove.call(this, type, listener, options);
  };
  probe.pageListeners = () => probe.listeners.filter((r) => !r.upload).map((r) => `${r.where} ${r.type}`).sort();
  window.requestAnimationFrame = (callback) => { probe.framesAsked += 1; return nativeFrame((t) => { probe.framesRan += 1; callback(t); }); };
  const nativeInterval = window.setInterval, nativeClearInterval = window.clearInterval;
  window.setInterval = (...args) => { const id = nativeInterval(...args); probe.intervals.add(id); return id; };
  window.clearInterval = (id) => { probe.intervals.delete(id); return nativeClearInterval(id); };
  const nativeTimeout = window.setTimeout, nativeClearTimeout = window.clearTimeout;
  window.setTimeout = (f, ...rest) => {
    const id = nativeTimeout((...a) => { probe.timeouts.delete(id); if (typeof f === "function") f(...a); }, ...rest);
    probe.timeouts.add(id);
    return id;
  };
  window.clearTimeout = (id) => { probe.timeouts.delete(id); return nativeClearTimeout(id); };
  const nativeFetch = window.fetch;
  window.fetch = (...args) => { probe.fetches += 1; return nativeFetch(...args); };
  const NativeObserver = window.ResizeObserver;
  window.ResizeObserver = class extends NativeObserver {
    observe(target, ...rest) { probe.observed.set(this, (probe.observed.get(this) ?? 0) + 1); return super.observe(target, ...rest); }
    disconnect() { probe.observed.delete(this); return super.disconnect(); }
  };
  probe.observations = () => [...probe.observed.values()].reduce((a, b) => a + b, 0);
  const NativeSocket = window.WebSocket;
  window.WebSocket = class extends NativeSocket {
    constructor(...args) {
      super(...args);
      probe.sockets.push(this);
      add.call(this, "close", (e) => probe.closes.push(e.code));
      const join = new URL(args[0], location.href).searchParams.get("join");   // a join in the URL
      if (join !== null) probe.joins.push(JSON.parse(join));
    }
    send(data) {
      probe.sends += 1;
      try { const m = JSON.parse(data); if (m.type === "join") probe.joins.push(m); } catch {}
      return super.send(data);
    }
  };
})();
"""

# What the probe has counted, read in one go.
COUNTS = """() => { const p = window.__probe; return {
  sockets: p.sockets.length, joins: p.joins.length, sends: p.sends, framesAsked: p.framesAsked, framesRan: p.framesRan,
  fetches: p.fetches, listeners: p.pageListeners(), intervals: p.intervals.size, timeouts: p.timeouts.size,
  observations: p.observations() }; }"""

# Entries start the page (main.js) or the upload form (upload.js), as index.html loads them; every
# other module only defines.
ENTRIES = {"js/main.js", "js/upload.js"}
MODULES = sorted(str(p.relative_to(PUBLIC)) for p in (PUBLIC / "js").rglob("*.js") if str(p.relative_to(PUBLIC)) not in ENTRIES)

# A wheel the page's listener would take (and cancel); dispatchEvent says whether it was cancelled.
WHEEL = "() => document.getElementById('view').dispatchEvent(new WheelEvent('wheel', { deltaY: 120, cancelable: true, bubbles: true }))"


def test_importing_the_pages_modules_starts_nothing(page, page_server, room):
    assert "js/page.js" in MODULES and len(MODULES) > 30
    page.add_init_script(PROBE)
    # A document of the page's origin with none of the page in it: the modules' source as text.
    page.goto(f"{page_server.base_url}/js/page.js")
    imported = page.evaluate("""async (modules) => {
        const exports = await Promise.all(modules.map((m) => import(`/${m}`)));
        await window.__probe.frames(3);   // anything a module put off to a task or a frame has run by now
        return exports.map((e) => Object.keys(e).length);
    }""", MODULES)
    assert all(n > 0 for n in imported), dict(zip(MODULES, imported))
    assert page.evaluate(COUNTS) == {"sockets": 0, "joins": 0, "sends": 0, "framesAsked": 0, "framesRan": 0, "fetches": 0,
                                     "listeners": [], "intervals": 0, "timeouts": 0, "observations": 0}
    assert page.evaluate("window.scrollcast") is None

    # The same probe on the page itself reads every one of those counts: it can see what a start does.
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    started = page.evaluate(COUNTS)
    assert started["sockets"] >= 1 and started["joins"] >= 1 and started["framesRan"] >= 1 and started["fetches"] >= 1
    assert {"canvas#view wheel", "window resize", "button#copy-link click"} <= set(started["listeners"]), started["listeners"]
    assert started["intervals"] >= 1 and started["observations"] == 2   # the stage and the stats line
    page.evaluate("window.scrollcast.page.controls.toast('a toast that hides itself')")
    assert page.evaluate(COUNTS)["timeouts"] >= 1
    assert sc.state("s.joined")


@pytest.mark.parametrize("replica", ["off", "on"])
def test_destroy_ends_everything_and_a_new_page_starts_after_it(page, page_server, room, artifacts, replica):
    page.add_init_script(PROBE)
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open(f"&replica={replica}")
    if replica == "on":
        sc.wait("s => s.replica.running")
        # What the state reports of the replica is a copy: writing to it steers nothing.
        assert page.evaluate("""() => { const r = window.scrollcast.state.replica;
            try { r.running = false; r.enabled = false; } catch {}
            return [Object.isFrozen(r), window.scrollcast.page.replica.running, window.scrollcast.state.replica.enabled]; }""") == [True, True, True]
    page.wait_for_function("document.querySelectorAll('#scene-list a').length > 0")   # its last listeners
    assert page.evaluate(WHEEL) is False, "the page takes (and cancels) a wheel"

    # A socket that closes by itself is resumed at once: the probe sees the new socket and its resume.
    sockets = page.evaluate("window.__probe.sockets.length")
    page.evaluate("window.__probe.sockets.at(-1).close()")
    sc.wait("s => s.resumes === 1 && s.joined")
    assert page.evaluate("window.__probe.sockets.length") == sockets + 1
    assert "resume" in page.evaluate("window.__probe.joins.at(-1)")

    # Mid-fling, with the loop drawing every display frame and a toast showing.
    sc.fling()
    page.evaluate("window.scrollcast.page.controls.toast('shown while the page is destroyed')")
    ran = page.evaluate("window.__probe.framesRan")
    page.evaluate("window.__probe.frames(3)")
    assert page.evaluate("window.__probe.framesRan") > ran, "the page's loop runs while the table moves"
    before = page.evaluate(COUNTS)
    assert before["timeouts"] >= 1 and before["intervals"] >= 1 and before["observations"] == 2
    assert "canvas#view wheel" in before["listeners"]
    middle = sc.client_point(200, 400)

    after = page.evaluate("""async () => {
        const old = window.scrollcast, socket = window.__probe.sockets.at(-1);
        old.page.destroy();
        const closed = new Promise((done) => socket.readyState === WebSocket.CLOSED ? done()
                                                : EventTarget.prototype.addEventListener.call(socket, "close", done));
        const moving = old.state.lastFrame.animating, drawn = old.state.framesDrawn, asked = window.__probe.framesAsked;
        await closed;
        await window.__probe.frames(5);   // a resume would have opened its socket at once; a loop asked five frames
        window.__old = old;
        return { hook: window.scrollcast === undefined, closes: window.__probe.closes.slice(-1), moving,
                 drawnSince: old.state.framesDrawn - drawn, askedSince: window.__probe.framesAsked - asked, inputs: old.state.inputsSent };
    }""")
    counts = page.evaluate(COUNTS)
    assert after["hook"], "window.scrollcast goes with its page"
    assert after["closes"] == [1000], "closed by the page, normally"
    assert counts["sockets"] == before["sockets"] and counts["joins"] == before["joins"], "no resume, no new socket"
    assert after["moving"] is True, "destroyed while the table moved"
    assert after["drawnSince"] == 0 and after["askedSince"] == 0, "the loop stopped mid-fling"
    assert counts["listeners"] == [], f"every listener the page added is gone: {counts['listeners']}"
    assert counts["intervals"] == 0 and counts["timeouts"] == 0 and counts["observations"] == 0
    sends = counts["sends"]
    assert page.evaluate(WHEEL) is True, "no listener takes a wheel any more"
    page.mouse.move(*middle)
    page.mouse.wheel(0, 300)
    page.evaluate("window.__probe.frames(2)")
    assert page.evaluate("window.__probe.sends") == sends and page.evaluate("window.__old.state.inputsSent") == after["inputs"]
    artifacts.screenshot(page, f"destroyed-replica-{replica}")

    # A new page on the same document: its own socket and join (a fresh one, no resume), its
    # listeners as many as the first one's, and a wheel that scrolls the room.
    page.evaluate("new window.__old.page.constructor().start()")
    sc.wait("s => s.joined && s.framesDrawn >= 1")
    assert page.evaluate("window.scrollcast.page !== window.__old.page")
    assert page.evaluate("window.__probe.sockets.length") == before["sockets"] + 1
    assert "resume" not in page.evaluate("window.__probe.joins.at(-1)")
    # As many listeners as the first page's once its scene list is in (a leak would never match).
    page.wait_for_function("(want) => JSON.stringify(window.__probe.pageListeners()) === JSON.stringify(want)", arg=before["listeners"])
    offset = sc.state("s.lastFrame.offset")
    assert page.evaluate(WHEEL) is False
    sc.wait("(s, o) => s.inputsSent >= 1 && s.lastFrame.offset !== o", offset)
    artifacts.screenshot(page, f"restarted-replica-{replica}")



def test_destroy_while_reconnecting_leaves_no_retry_and_no_banner_to_come(page, page_server, link_proxy, room, artifacts):
    # 300 ms each way through the link: the page's new socket is still opening when it is destroyed,
    # and its "reconnecting" (shown once a loss lasts 500 ms) still to come.
    proxy = link_proxy(page_server.port, "loopback", delay_ms=300)
    page.add_init_script(PROBE)
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open(f"&nodes=127.0.0.1:{proxy.port}")
    sockets = page.evaluate("window.__probe.sockets.length")
    assert proxy.cut() >= 1
    page.wait_for_function("(n) => window.__probe.sockets.length > n", arg=sockets)   # the retry, at once
    pending = page.evaluate("""async () => {
        const old = window.scrollcast, timers = window.__probe.timeouts.size, socket = window.__probe.sockets.at(-1);
        const opening = socket.readyState === WebSocket.CONNECTING;
        const closed = new Promise((done) => EventTarget.prototype.addEventListener.call(socket, "close", done));
        old.page.destroy();
        await closed;
        await window.__probe.frames(3);   // a retry would have been asked for at the close, at once
        window.__old = old;
        return { timers, opening, reconnecting: old.state.reconnecting };
    }""")
    assert pending["timers"] >= 1 and pending["opening"], "the banner's timer pending, the new socket opening"
    counts = page.evaluate(COUNTS)
    assert counts["sockets"] == sockets + 1, "no retry after the destroy"
    assert counts["timeouts"] == 0, "no banner to come, no retry to come"
    assert counts["intervals"] == 0 and counts["listeners"] == []
    assert pending["reconnecting"] is False and page.evaluate("window.__old.state.reconnectingShownCount") == 0
