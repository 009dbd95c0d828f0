"""What a viewer sees, measured (docs/measures.md), in real Chromium against the real server: the
page's drawn record agrees with the frames its socket received and has one entry per display
frame during motion; its judder and input-to-photon figures are what the definitions give when
recomputed in Python (measures_recompute.py) from the raw record; and through the `4g` link the
record shows what the link does to a fling, where loopback does not."""

from __future__ import annotations

import json
import math

import pytest

from measures_recompute import judder, nearest_rank
from measures_session import fling, fling_judder, photon, record
from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)
from wire_v2 import WireV2Decoder

# The test's own requestAnimationFrame loop: the timestamps of every display frame, to check the
# page recorded each one during motion. Callbacks of one display frame share one timestamp.
VSYNC_PROBE = """() => { window.__vsyncs = [];
  const loop = (ts) => { window.__vsyncs.push(ts); requestAnimationFrame(loop); };
  requestAnimationFrame(loop); }"""

# Every pointer event's timestamp (coalesced samples too), seen by a listener of the test's own.
POINTER_PROBE = """() => { window.__pointerTimes = [];
  const c = document.getElementById('view');
  for (const type of ['pointerdown', 'pointermove', 'pointerup']) c.addEventListener(type, (e) => {
    window.__pointerTimes.push(e.timeStamp);
    for (const s of (e.getCoalescedEvents ? e.getCoalescedEvents() : [])) window.__pointerTimes.push(s.timeStamp);
  }, { capture: true }); }"""


class ReceivedFrames:
    """Every frame the page's WebSocket received (snapshot frames too), by seq, decoded here."""

    def __init__(self, page):
        self.by_seq: dict[int, dict] = {}
        page.on("websocket", self._watch)

    def _watch(self, ws):
        decoder = WireV2Decoder()

        def received(payload):
            if isinstance(payload, str):
                message = json.loads(payload)
            else:
                message = decoder.decode(payload)
            frame = message.get("frame") if message.get("type") == "snapshot" else message
            if frame and frame.get("type") == "frame":
                self.by_seq[frame["seq"]] = frame
        ws.on("framereceived", received)


def assert_record_consistent(entries: list[dict], received: ReceivedFrames, frames_drawn: int | None = None):
    assert entries, "the page recorded nothing"
    for prev, cur in zip(entries, entries[1:]):
        assert cur["n"] == prev["n"] + 1, "entries are numbered without gaps"
        assert cur["vsync"] > prev["vsync"], f"two entries in one display frame: {prev} {cur}"
        assert cur["at"] >= prev["at"]
        assert cur["seq"] >= prev["seq"] and cur["t"] >= prev["t"], f"the picture went back in time: {prev} {cur}"
        assert cur["fresh"] == (cur["seq"] != prev["seq"]), f"fresh means a newly drawn frame: {prev} {cur}"
    for e in entries:
        frame = received.by_seq.get(e["seq"])
        assert frame is not None, f"the page drew seq {e['seq']}, which its socket never received"
        assert e["offset"] == pytest.approx(frame["offset"], abs=1e-9), (e, frame["offset"])
        assert e["t"] == pytest.approx(frame["t"], abs=1e-9), (e, frame["t"])
        assert e["animating"] == frame["animating"]
        assert e["input"] == ((frame.get("input") or {}).get("id", -1))
    if frames_drawn is not None:
        assert entries[0]["n"] == 0 and entries[0]["fresh"], "the record has not wrapped; it starts with the first frame"
        fresh = sum(1 for e in entries if e["fresh"])
        assert fresh == frames_drawn, "each newly drawn frame is one fresh entry"


def assert_every_display_frame_in_motion_recorded(entries: list[dict], vsyncs: list[float]):
    """While the frame on screen is animating, the page records every display frame: no display
    frame of the test's own loop falls between an animating entry and the next entry."""
    motion = [e for e in entries if e["animating"]]
    assert len(motion) > 20, f"too short a motion to judge: {len(motion)} display frames"
    seen = sorted(set(vsyncs))
    assert seen and seen[0] <= motion[0]["vsync"], "the test's loop started after the motion"
    missing = [v for a, b in zip(entries, entries[1:]) if a["animating"]
               for v in seen if a["vsync"] < v < b["vsync"]]
    assert not missing, f"display frames during motion without an entry: {missing[:5]} of {len(missing)}"


def assert_figures_as_defined(page, span: tuple[int, int]):
    """The page's judder over a span, its overlay's figures and its input-to-photon samples equal
    the Python recomputation from the raw record. Returns (judder, input-to-photon ms)."""
    page_judder, _, expected = fling_judder(page, span)
    for key, value in expected.items():
        assert page_judder[key] == pytest.approx(value), (key, page_judder, expected)

    # The overlay's figures, over the window they name, read in one task with that window.
    page.wait_for_function("""() => { const s = window.scrollcast.state;
        return s.judder && s.judder.to === window.scrollcast.drawnRecord(1)[0].n + 1
            && s.inputToPhoton.samples === window.scrollcast.inputToPhotonSamples().length; }""")
    shown = page.evaluate("""() => { const s = window.scrollcast.state;
        return { judder: s.judder, window: window.scrollcast.drawnSince(s.judder.from, s.judder.to),
                 photon: s.inputToPhoton,
                 overlay: document.getElementById('judder').textContent + ' ' + document.getElementById('photon').textContent }; }""")
    overlay_expected = judder(shown["window"])
    assert shown["judder"]["judderPct"] == pytest.approx(overlay_expected["judderPct"])
    assert shown["judder"]["repeats"] == overlay_expected["repeats"]
    assert shown["judder"]["skips"] == overlay_expected["skips"]
    assert f"judder {overlay_expected['judderPct']:.1f} %" in shown["overlay"]

    theirs, mine = photon(page)
    assert mine, "no pointer input was ever shown"
    assert [s["id"] for s in mine] == [s["id"] for s in theirs]
    for a, b in zip(mine, theirs):
        assert a["ms"] == pytest.approx(b["ms"])
    values = [s["ms"] for s in mine]
    assert shown["photon"]["p50"] == pytest.approx(nearest_rank(values, 0.5))
    assert shown["photon"]["p99"] == pytest.approx(nearest_rank(values, 0.99))
    assert f"input→photon {math.floor(nearest_rank(values, 0.5) + 0.5)} ms" in shown["overlay"]   # Math.round
    return expected, values


def measure_fling(page, base_url: str, room: str):
    """Opens the page, flings once, checks the record and the figures; returns (judder of the
    fling, input-to-photon ms of its pointer inputs)."""
    received = ReceivedFrames(page)
    sc = ScrollcastPage(page, base_url, room).open()
    sc.wait_idle()
    page.evaluate(POINTER_PROBE)
    page.evaluate(VSYNC_PROBE)
    span = fling(sc)
    both = page.evaluate("() => [window.scrollcast.state.drawn, window.scrollcast.drawnSince(0)]")
    assert both[0] == both[1], "state.drawn is the whole record"
    entries = record(page)
    assert_record_consistent(entries, received, sc.state("s.framesDrawn"))
    assert_every_display_frame_in_motion_recorded(record(page, *span), page.evaluate("window.__vsyncs"))
    figures, photon_ms = assert_figures_as_defined(page, span)
    pointer_times = page.evaluate("window.__pointerTimes")
    for s in page.evaluate("window.scrollcast.sentPointerInputs()"):
        assert any(abs(s["t"] - p) < 0.002 for p in pointer_times), f"input {s} carries no pointer event's time"
    return figures, photon_ms


def test_loopback_record_judder_and_input_to_photon(page, page_server, room, artifacts):
    artifacts.watch(page)
    figures, photon = measure_fling(page, page_server.base_url, room)
    assert figures["motionFrames"] > 20
    assert all(ms > 0 for ms in photon), "a display frame cannot show an input before it happened"
    artifacts.screenshot(page, "after-fling")


# The 4g profile's one-way base delay, each direction (docs/links.md): no input can show sooner
# than its trip to the server and its frame's trip back.
FOUR_G_TWO_WAY_BASE_MS = 2 * 40


def test_4g_link_makes_a_fling_judder_and_delays_the_drivers_own_drag(page, server_factory, room, link_proxy, artifacts):
    # The page through the proxy has the proxy's origin, which the server must accept.
    server = server_factory("--allowed-origins", "*")
    artifacts.watch(page, "loopback")
    loopback, loopback_photon = measure_fling(page, server.base_url, room + "-loopback")

    proxy = link_proxy(server.port, "4g")
    far = artifacts.watch(page.context.new_page(), "4g")
    four_g, four_g_photon = measure_fling(far, f"http://127.0.0.1:{proxy.port}", room + "-4g")
    artifacts.screenshot(far, "4g-after-fling")

    # Frames bunch up and spread out on the way: some display frames wait for a late frame,
    # others come after two arrived at once.
    assert four_g["repeats"] > 0 and four_g["skips"] > 0, four_g
    assert four_g["judderPct"] > loopback["judderPct"], (four_g, loopback)
    assert min(four_g_photon) > FOUR_G_TWO_WAY_BASE_MS, sorted(four_g_photon)
    assert nearest_rank(four_g_photon, 0.5) > nearest_rank(loopback_photon, 0.5)
