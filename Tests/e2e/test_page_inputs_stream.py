"""The page in the inputs stream (`?stream=inputs`; docs/protocol.md "The inputs stream", docs/wasm.md),
in real Chromium against the real server: a driver and a watcher replicate from the snapshot's
engine state and the room's batches, receive no frame, and check every beat's hash against their
own frame (late joiners mid-fling and mid-move: test_page_inputs_stream_link.py); a replica whose
state is corrupted mismatches, asks for a keyframe (counted on the page and on /metrics) and is
right again; a page naming an engine version the server does not serve is refused 4100 and draws
the frames stream; a room of an uploaded scene is replicated from the scene's bytes, every beat
matched."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, fetched_paths, page_server, room,
)
from replica_session import move_a_row, replica
from server_helpers import metric
from upload_helpers import post_trail

INPUTS = "&stream=inputs&replica=on"

# Counts what each socket of the page receives, by message type, and keeps the snapshots: the
# test's own view of the wire, beside the page's counters. Version 1 is JSON; version 2's binary
# messages are read here from docs/protocol.md alone, only as far as the tests look: the type
# byte, a snapshot's head up to its `replica` changes, a batch's change number and entry count.
COUNT_RECEIVED = """
(() => {
  const Native = window.WebSocket;
  window.__received = {};
  window.__snapshots = [];
  window.__sockets = [];
  window.__joins = [];
  window.__changes = null;   // the change count of the last snapshot or batch received
  const TYPES = { 1: "snapshot", 2: "frame", 3: "texts", 4: "rowMoved", 5: "presence", 6: "refused", 7: "error",
                  8: "resumed", 9: "applied", 10: "beat", 16: "batch", 17: "beat" };
  const readBinary = (buffer) => {
    const bytes = new Uint8Array(buffer);
    let at = 1;
    const uvar = () => { let value = 0, scale = 1, b; do { b = bytes[at++]; value += (b & 0x7f) * scale; scale *= 128; } while (b & 0x80); return value; };
    const str = () => { const n = uvar(); at += n; };
    const message = { type: TYPES[bytes[0]] ?? `type-${bytes[0]}` };
    if (message.type === "snapshot") {
      uvar(); str(); str(); uvar();
      const flags = bytes[at++];
      if (flags & 1) str();
      if (flags & 4) str();
      if (flags & 16) { uvar(); uvar(); }
      if (flags & 32) { const engine = uvar(); at += 8; message.replica = { engine, changes: uvar() }; }
    }
    if (message.type === "batch") message.changes = uvar(), message.applied = { length: uvar() };
    return message;
  };
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.__sockets.push(this);
      // A join the page carries in the upgrade's URL (docs/protocol.md, "Joining in the upgrade").
      const inURL = new URL(String(args[0]), location.href).searchParams.get("join");
      if (inURL) window.__joins.push(JSON.parse(inURL));
      this.addEventListener("message", (event) => {
        let message = { type: "unreadable" };
        if (typeof event.data === "string") { try { message = JSON.parse(event.data); } catch {} }
        else if (event.data instanceof ArrayBuffer) { try { message = readBinary(event.data); } catch {} }
        window.__received[message.type] = (window.__received[message.type] ?? 0) + 1;
        if (message.type === "snapshot") window.__snapshots.push(message);
        if (message.type === "snapshot" && message.replica) window.__changes = message.replica.changes;
        if (message.type === "batch") window.__changes = message.changes;
        if (message.type === "batch") window.__largestBatch = Math.max(window.__largestBatch ?? 0, message.applied.length);
      });
    }
    send(data) {
      try { const m = JSON.parse(data); if (m.type === "join") window.__joins.push(m); } catch {}
      return super.send(data);
    }
  };
})();
"""


def counted_page(browser, base_url: str, room: str, artifacts, label: str, query: str) -> ScrollcastPage:
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    context.add_init_script(COUNT_RECEIVED)
    page = context.new_page()
    artifacts.watch(page, label)
    return ScrollcastPage(page, base_url, room).open(query)


def received(sc) -> dict:
    return sc.page.evaluate("window.__received")


def wait_streaming(sc):
    sc.wait("s => s.replica.stream === 'inputs' && s.replica.running || s.replica.fallbacks > 0")
    r = replica(sc)
    assert r["stream"] == "inputs" and r["running"], f"the page did not take the inputs stream: {r}"


def wait_every_beat_checked(sc):
    """At rest, every beat received has been checked (the last one, at rest, included), but for
    those that came while a keyframe was awaited."""
    sc.wait_idle()
    sc.page.wait_for_function(
        "() => { const r = window.scrollcast.state.replica; return r.beatsChecked + r.beatsUnchecked === window.__received.beat; }")


# What a page draws: the offset and each row's id and place, to the hundredth of a point.
PICTURE = "f => ({offset: f.offset.toFixed(2), rows: f.rows.map((r) => [r.id, r.y.toFixed(2)])})"


def picture(sc) -> dict:
    """What the page draws now (`PICTURE`)."""
    return sc.page.evaluate(f"({PICTURE})(window.scrollcast.state.lastFrame)")


def assert_same_picture(sc, frames: ScrollcastPage, timeout: float = 10000):
    """`sc` comes to draw what the frames viewer (at rest) draws, within a deadline, row for row.
    Waited for whole, rows too: a watcher draws the room a playout delay late, so on a loaded
    machine its picture can be at the rest's offset while the row move is still under way there
    (seen once: the moved row's place open, the rows below it 64 pt low); a picture that never
    comes fails with the last one drawn."""
    frames.wait_idle()
    want = picture(frames)
    try:
        sc.page.wait_for_function(
            f"(want) => {{ const f = window.scrollcast.state.lastFrame;"
            f" return f && JSON.stringify(({PICTURE})(f)) === JSON.stringify(want); }}", arg=want, timeout=timeout)
    except PlaywrightTimeoutError:
        pass
    assert picture(sc) == want


def wheel_burst(sc):
    sc.page.mouse.move(*sc.client_point(200, 400))
    for _ in range(6):
        sc.page.mouse.wheel(0, 120)
    sc.wait_settled()


def assert_streamed_cleanly(label: str, sc):
    """Once every beat is checked: `sc` received batches and beats but no frame, stayed in the
    inputs stream, matched every beat with no keyframe, and applied the one row move."""
    wait_every_beat_checked(sc)
    got, r = received(sc), replica(sc)
    assert got.get("frame", 0) == 0 and got.get("unreadable", 0) == 0, f"{label} received frames: {got}"
    assert got.get("batch", 0) > 5 and got.get("beat", 0) > 5, f"{label}: {got}"
    assert r["stream"] == "inputs" and r["fallbacks"] == 0, r
    assert r["beatsChecked"] > 5 and r["beatsMatched"] == r["beatsChecked"], r
    assert r["mismatches"] == 0 and r["keyframes"] == 0, (label, r["keyframeReason"], r["engineRestarts"], r["starts"])
    assert sc.state("s.rowMoves") == 1


def play_and_check(driver, watcher, frames):
    """A fling, a wheel burst and a row move by `driver`; then both inputs-stream pages streamed
    cleanly (`assert_streamed_cleanly`)."""
    driver.fling()
    for sc in (driver, watcher, frames):
        sc.wait_idle()
    wheel_burst(driver)
    move_a_row(driver, watcher, frames)
    for label, sc in (("driver", driver), ("watcher", watcher)):
        assert_streamed_cleanly(label, sc)


def streaming_trio(browser, page_server, room, artifacts, query: str):
    """A frames page, then a driver and a watcher opened with `query`, both in the inputs stream;
    with the joins each of the two sent."""
    frames = counted_page(browser, page_server.base_url, room, artifacts, "frames", "")
    driver = counted_page(browser, page_server.base_url, room, artifacts, "driver", query)
    watcher = counted_page(browser, page_server.base_url, room, artifacts, "watcher", query)
    for sc in (driver, watcher):
        wait_streaming(sc)
    return frames, driver, watcher, [sc.page.evaluate("window.__joins") for sc in (driver, watcher)]


@pytest.mark.parametrize("protocol", ["v2", "v1"])
def test_a_driver_and_a_watcher_take_inputs_and_beats_and_no_frame(browser, page_server, room, artifacts, protocol):
    frames, driver, watcher, joins = streaming_trio(browser, page_server, room, artifacts, f"{INPUTS}&protocol={protocol}")
    for sc in (driver, watcher):
        assert sc.state("s.protocol") == f"scrollcast.{protocol}"
    assert all(j.get("batchMs") == 250 for js in joins for j in js), "the page's period unless ?batch= (stream.js)"

    play_and_check(driver, watcher, frames)
    got = received(frames)
    assert got.get("frame", 0) > 30, f"the frames viewer of the same room got frames: {got}"
    assert replica(driver)["predicted"] > 10, "the driver drew its own inputs before the room applied them"
    assert_same_picture(watcher, frames)
    assert_same_picture(driver, frames)
    r = replica(watcher)
    watcher.page.wait_for_function(
        "(text) => document.getElementById('replica-stats').textContent.includes(text)",
        arg=f"inputs stream: {r['beatsMatched']}/{r['beatsChecked']} beats matched, 0 keyframes")
    watcher.wait("s => s.measures && s.measures.wrong.judged > 50")
    wrong = watcher.state("s.measures.wrong")
    assert wrong["wrong"] == 0, wrong
    for label, sc in (("driver", driver), ("watcher", watcher)):
        m, r = sc.state("s.measures"), replica(sc)
        print(f"{label}: wrong {m['wrong']['wrong']}/{m['wrong']['judged']}, clock judder {m['clock']['pct']} %, "
              f"beats {r['beatsMatched']}/{r['beatsChecked']}, batches {r['batches']}, received {received(sc)}")


def test_a_corrupted_replica_mismatches_asks_a_keyframe_and_is_right_again(browser, page_server, room, artifacts):
    frames = counted_page(browser, page_server.base_url, room, artifacts, "frames", "")
    watcher = counted_page(browser, page_server.base_url, room, artifacts, "watcher", INPUTS)
    wait_streaming(watcher)
    keyframes_before = metric(page_server, "scrollcast_keyframes_total")
    assert watcher.page.evaluate("window.scrollcast.test.corrupt()") is True
    frames.fling()
    watcher.wait("s => s.replica.keyframes >= 1 && s.replica.mismatches >= 1")
    watcher.wait("s => s.replica.running && s.replica.stream === 'inputs'")
    frames.wait_idle()
    wait_every_beat_checked(watcher)
    r = replica(watcher)
    assert r["fallbacks"] == 0 and r["stream"] == "inputs", r
    assert r["mismatches"] == 1 and r["keyframes"] == 1, r
    assert r["beatsMatched"] == r["beatsChecked"] - 1 and r["beatsMatched"] >= 1, "right again after the keyframe"
    assert received(watcher)["snapshot"] == 2, "the keyframe came as a second snapshot"
    assert metric(page_server, "scrollcast_keyframes_total") >= keyframes_before + 1
    assert_same_picture(watcher, frames)
    checked = replica(watcher)["beatsChecked"]
    wheel_burst(frames)
    assert_same_picture(watcher, frames)
    wait_every_beat_checked(watcher)
    r = replica(watcher)
    assert r["mismatches"] == 1 and r["beatsChecked"] > checked and r["beatsMatched"] == r["beatsChecked"] - 1, r


def test_a_page_whose_hash_keeps_disagreeing_is_moved_to_frames(browser, page_server, room, artifacts):
    frames = counted_page(browser, page_server.base_url, room, artifacts, "frames", "")
    watcher = counted_page(browser, page_server.base_url, room, artifacts, "watcher", INPUTS)
    wait_streaming(watcher)
    fallbacks_before = metric(page_server, "scrollcast_inputs_stream_fallbacks_total")
    for asked in (1, 2, 3):
        watcher.wait("s => s.replica.running")
        assert watcher.page.evaluate("window.scrollcast.test.corrupt()") is True
        wheel_burst(frames)
        watcher.wait("(s, n) => s.replica.keyframes >= n", asked)
    watcher.wait("s => s.replica.fallbacks > 0")
    r = replica(watcher)
    assert r["stream"] == "frames" and r["fallbacks"] == 1 and "moved" in r["fallbackReason"], r
    assert r["keyframes"] == 3 and r["mismatches"] == 3, r
    assert "replica" not in watcher.page.evaluate("window.__snapshots.at(-1)"), "the third answer: a snapshot without replica"
    assert metric(page_server, "scrollcast_inputs_stream_fallbacks_total") >= fallbacks_before + 1
    before = received(watcher).get("frame", 0)
    wheel_burst(frames)
    assert_same_picture(watcher, frames)
    assert received(watcher).get("frame", 0) > before, "frames now"
    assert "frames stream" in watcher.page.evaluate("document.getElementById('replica-stats').textContent")


def test_a_cut_resumes_by_the_change_count(browser, page_server, room, artifacts):
    frames = counted_page(browser, page_server.base_url, room, artifacts, "frames", "")
    watcher = counted_page(browser, page_server.base_url, room, artifacts, "watcher", INPUTS)
    wait_streaming(watcher)
    frames.fling()
    watcher.wait("s => s.replica.batches >= 2")
    changes = watcher.page.evaluate("() => { window.__sockets.at(-1).close(3000, 'test: the link is cut'); return window.__changes; }")
    assert changes > 0
    watcher.wait("s => s.resumes >= 1 && s.joined")
    join = watcher.page.evaluate("window.__joins.at(-1)")
    assert join["stream"] == "inputs" and join["engine"] == 1 and join["resume"]["seq"] == changes, join
    got = received(watcher)
    assert got.get("resumed") == 1 and got.get("snapshot") == 1, got
    assert_same_picture(watcher, frames)
    wait_every_beat_checked(watcher)
    r = replica(watcher)
    assert r["mismatches"] == 0 and r["keyframes"] == 0 and r["beatsMatched"] == r["beatsChecked"] > 2, r
    assert received(watcher).get("frame", 0) == 0


def test_an_engine_the_server_does_not_serve_is_refused_4100_and_takes_frames(browser, page_server, room, artifacts):
    sc = counted_page(browser, page_server.base_url, room, artifacts, "bogus", INPUTS + "&engine=999")
    sc.wait("s => s.replica.fallbacks > 0 && s.joined")
    r = replica(sc)
    assert r["stream"] == "frames" and r["fallbacks"] == 1 and "4100" in r["fallbackReason"], r
    assert "stream 'inputs' needs engine" in " ".join(sc.state("s.errors"))
    assert received(sc).get("snapshot") == 1, received(sc)
    wheel_burst(sc)
    assert received(sc).get("frame", 0) > 5, "the frames stream"
    assert sc.frame()["offset"] > 100, "it drew the room scrolled"
    assert "replica" not in sc.page.evaluate("window.__snapshots[0]")
    assert "frames stream" in sc.page.evaluate("document.getElementById('replica-stats').textContent")


def test_a_room_of_an_uploaded_scene_replicates_from_its_scene_bytes_matching_every_beat(
        browser, page_server, room, artifacts):
    status, _, answer = post_trail(page_server)
    assert status in (200, 201), answer
    scene = answer["scene"]
    frames = counted_page(browser, page_server.base_url, room, artifacts, "frames", f"&scene={scene}")
    driver = counted_page(browser, page_server.base_url, room, artifacts, "driver", INPUTS)
    wait_streaming(driver)
    # A row moved before the watcher joins: its state's order is relative to the scene's bytes.
    move_a_row(driver, frames)
    watcher = counted_page(browser, page_server.base_url, room, artifacts, "watcher", INPUTS)
    wait_streaming(watcher)
    for sc in (driver, watcher):
        assert sc.state("s.sceneName") == scene
        fetched = fetched_paths(sc.page, [f"/scenes/{scene}"])
        assert f"/scenes/{scene}" in fetched, f"the page built the scene from its bytes: {fetched}"
    driver.fling()
    for sc in (driver, watcher, frames):
        sc.wait_idle()
    wheel_burst(driver)
    for label, sc in (("driver", driver), ("watcher", watcher)):
        wait_every_beat_checked(sc)
        got, r = received(sc), replica(sc)
        assert got.get("frame", 0) == 0 and got.get("unreadable", 0) == 0, f"{label} received frames: {got}"
        assert r["stream"] == "inputs" and r["fallbacks"] == 0, (label, r)
        assert r["beatsChecked"] > 5 and r["beatsMatched"] == r["beatsChecked"] and r["beatsUnchecked"] == 0, (label, r)
        assert r["mismatches"] == 0 and r["keyframes"] == 0, (label, r["keyframeReason"])
        print(f"uploaded scene, {label}: beats {r['beatsMatched']}/{r['beatsChecked']}, batches {r['batches']}")
    assert_same_picture(watcher, frames)
    assert_same_picture(driver, frames)