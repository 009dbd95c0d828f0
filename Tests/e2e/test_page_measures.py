"""What a viewer sees, measured (docs/measures.md), in real Chromium against the real server: the
page's drawn record agrees with the frames its socket received and has one entry per display
frame during motion; its measures of the picture are what the definitions give when
recomputed in Python (measures_recompute.py) from the raw record; and through the `4g` link the
record shows what the link does to a fling without the replica (the known-bad case), and that
the replica does better on each figure."""

from __future__ import annotations

import pytest

from measures_recompute import nearest_rank, picture_measures
from measures_session import ReceivedFrames, assert_same_figures, fling, measured, picture_samples, record, summary
from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)

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


def assert_figures_as_defined(page, span: tuple[int, int]) -> dict:
    """The page's measures over a span, and its overlay's figures with their text, equal the
    Python recomputation from the raw record. Returns the span's figures."""
    mine, expected, _, _ = measured(page, span)
    assert_same_figures(mine, expected)

    # The overlay: state.measures and the text on screen come from one computation, written in
    # one task, which keeps the entries and inputs it covered; read them with the record as it
    # is now, in one task too. The record differs only by pictures confirmed since.
    page.wait_for_function("() => window.scrollcast.state.measures !== null")
    shown = page.evaluate("""() => { const m = window.scrollcast.state.measures;
        return { m, now: window.scrollcast.drawnSince(m.from, m.to),
                 overlay: [document.getElementById('judder').textContent, document.getElementById('photon').textContent] }; }""")
    then = shown["m"]["entries"]
    assert len(then) == len(shown["now"]) == shown["m"]["to"] - shown["m"]["from"]
    for was, now in zip(then, shown["now"]):
        assert {**was, "room": None, "never": None} == {**now, "room": None, "never": None}, (was, now)
        assert was["room"] is None or was["room"] == now["room"], (was, now)
    overlay_expected = picture_measures(then, shown["m"]["sent"])
    assert_same_figures(shown["m"], overlay_expected)
    assert shown["overlay"] == [shown["m"]["text"]["judder"], shown["m"]["text"]["photon"]]
    wrong, clock = overlay_expected["wrong"], overlay_expected["clock"]
    if wrong["pct"] is not None:
        assert f"wrong {wrong['pct']:.1f} %" in shown["overlay"][0]
    if clock["pct"] is not None:
        assert f"judder clock {clock['pct']:.1f} %" in shown["overlay"][0]
    return expected


def measure_fling(page, base_url: str, room: str, replica: str = "off"):
    """Opens the page, flings once, checks the record and the figures; returns the fling's
    measures and the input-to-picture ms of its pointer inputs."""
    received = ReceivedFrames(page)
    sc = ScrollcastPage(page, base_url, room).open(f"&replica={replica}")
    if replica == "on":
        sc.wait("s => s.replica.running")
    sc.wait_idle()
    page.evaluate(POINTER_PROBE)
    page.evaluate(VSYNC_PROBE)
    span = fling(sc)
    both = page.evaluate("() => [window.scrollcast.state.drawn, window.scrollcast.drawnSince(0)]")
    assert both[0] == both[1], "state.drawn is the whole record"
    if replica == "off":
        assert_record_consistent(record(page), received, sc.state("s.framesDrawn"))
    assert_every_display_frame_in_motion_recorded(record(page, *span), page.evaluate("window.__vsyncs"))
    figures = assert_figures_as_defined(page, span)
    pointer_times = page.evaluate("window.__pointerTimes")
    for s in page.evaluate("window.scrollcast.sentPointerInputs()"):
        assert any(abs(s["t"] - p) < 0.002 for p in pointer_times), f"input {s} carries no pointer event's time"
    return figures, [s["ms"] for s in picture_samples(page)]


def test_loopback_record_and_measures_as_defined(page, page_server, room, artifacts):
    artifacts.watch(page)
    figures, photon = measure_fling(page, page_server.base_url, room)
    assert figures["motionFrames"] > 20
    # Server frames are the room's own pictures: every one is judged, none is wrong.
    assert figures["wrong"]["judged"] == figures["motionFrames"] and figures["wrong"]["wrong"] == 0, figures
    assert photon and all(ms > 0 for ms in photon), "a display frame cannot show an input before it happened"
    artifacts.screenshot(page, "after-fling")


# The 4g profile's one-way base delay, each direction (docs/links.md): no input can show sooner
# than its trip to the server and its picture's trip back.
FOUR_G_ONE_WAY_BASE_MS = 40


@pytest.mark.alone
def test_4g_without_the_replica_reads_badly_and_with_it_does_not(page, server_factory, room, link_proxy, artifacts):
    """The known-bad case (issue 27): server frames only, through 4g. Frames bunch up and spread
    out on the way, so the drawn clock freezes and jumps; no input shows before its round trip;
    the picture is a one-way trip and more behind the room. The replica on the same link reads
    well on each of those figures."""
    server = server_factory("--allowed-origins", "*")
    proxy = link_proxy(server.port, "4g")
    base = f"http://127.0.0.1:{proxy.port}"
    artifacts.watch(page, "off")
    off, off_photon = measure_fling(page, base, room + "-off")
    artifacts.screenshot(page, "4g-off-after-fling")
    on_page = artifacts.watch(page.context.new_page(), "on")
    on_page.bring_to_front()
    on, on_photon = measure_fling(on_page, base, room + "-on", replica="on")
    print(f"4g fling, replica off: {summary(off, off_photon)}")
    print(f"4g fling, replica on:  {summary(on, on_photon)}")

    assert off["clock"]["freezes"] > 0 and off["clock"]["jumps"] > 0, off["clock"]
    assert off["clock"]["pct"] >= 10, off["clock"]
    assert min(off_photon) > 2 * FOUR_G_ONE_WAY_BASE_MS, sorted(off_photon)
    assert off["lag"]["p50"] > FOUR_G_ONE_WAY_BASE_MS, off["lag"]
    assert on["clock"]["pct"] < off["clock"]["pct"] / 2, (on["clock"], off["clock"])
    assert nearest_rank(on_photon, 0.5) < 2 * FOUR_G_ONE_WAY_BASE_MS, sorted(on_photon)
