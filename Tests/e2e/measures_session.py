"""Driving a page and reading its measures (docs/measures.md): shared by
Tests/e2e/test_page_measures*.py and bench/links.py, so the benchmark measures a fling exactly as
the tests check it."""

from __future__ import annotations

import json

import pytest

from measures_recompute import driver_to_watcher, input_to_picture, motion, nearest_rank, picture_measures
from wire_v2 import WireV2Decoder

# A quick drag up the long table and release: momentum, then rest (viewport pt).
FLING = (200, 720, 200, 140)
FLING_STEPS = 6


class ReceivedFrames:
    """Every frame the page's WebSockets received (snapshot frames too), by seq, decoded here with
    one texts table, as the page keeps it (a resumed connection sends only what is new); and the
    room time of every input the room applied (`applied`: (viewer, id) -> t), for a page that
    asks for them (the replica)."""

    def __init__(self, page):
        self.by_seq: dict[int, dict] = {}
        self.applied: dict[tuple[str, int], float] = {}
        self.decoder = WireV2Decoder()
        page.on("websocket", self._watch)

    def _watch(self, ws):
        def received(payload):
            if isinstance(payload, str):
                message = json.loads(payload)
            else:
                message = self.decoder.decode(payload)
            if message.get("type") == "applied" and message.get("cause") == "input":
                self.applied[(message.get("viewer"), message.get("id"))] = message["t"]
            frame = message.get("frame") if message.get("type") == "snapshot" else message
            if frame and frame.get("type") == "frame":
                self.by_seq[frame["seq"]] = frame
        ws.on("framereceived", received)


def room_offset(received: ReceivedFrames) -> float:
    """The room's present at wall-clock time E is E plus this (ms): max(t − sentAt) over the
    frames received (sentAt: the server's wall clock as it encoded frame t), on the machine's one
    clock that the server, the link and the browser share."""
    return max(f["t"] - f["sentAt"] for f in received.by_seq.values() if f.get("sentAt"))


def watcher_delays(page, received: ReceivedFrames, entries: list[dict]) -> dict:
    """A watcher's true lag and its link's one-way delays (ms), on the machine's one clock (the
    server, the link and the browser share it): the room's present at wall-clock time E is
    E + max(t − sentAt) over the frames received (sentAt: the server's wall clock as it encoded
    frame t). `lag`: the room's present at each display frame in motion (its vsync) minus the
    room time drawn. `oneWay`: for each mark that arrived during the entries (watchClock()'s
    arrivals), its arrival minus the moment the room's clock showed it: how late the link and the
    page's own thread delivered the room's present; `marks`: (page time arrived, one-way) of each."""
    origin = page.evaluate("performance.timeOrigin")
    room = room_offset(received)
    clock = page.evaluate("window.scrollcast.test.watchClock?.() ?? null")   # none without the replica
    lag = [origin + e["vsync"] + room - e["t"] for e, moving in zip(entries, motion(entries)) if moving]
    first, last = entries[0]["at"], entries[-1]["at"]
    arrivals = (clock or {}).get("arrivals", [])
    marks = [(a, origin + a + room - m) for a, m, _ in arrivals if first <= a <= last]
    return {"lag": lag, "oneWay": [d for _, d in marks], "marks": marks, "staleness": staleness(entries, arrivals)}


def driver_to_watcher_ms(driver, watcher, received: ReceivedFrames, entries: list[dict]) -> list[float]:
    """Driver to watcher (docs/measures.md), ms per pointer input of `driver` (a page): from its
    pointer event to the first display frame of `watcher` (a page of the same browser, so of the
    same wall clock) among its `entries` that draws that input right, each input at the room time
    the room applied it (`received`: the watcher's socket, which the room sends `applied` to; to a
    page without the replica, none: then the time of the first frame naming it, a bound above)."""
    raw = driver.evaluate("() => ({ origin: performance.timeOrigin, viewer: window.scrollcast.state.viewer, "
                          "sent: window.scrollcast.sentPointerInputs() })")
    applied = {i: t for (v, i), t in received.applied.items() if v == raw["viewer"]}
    if not applied:   # a page without the replica asks for no `applied`: the first frame naming the input
        for f in sorted(received.by_seq.values(), key=lambda f: f["t"], reverse=True):
            if (f.get("input") or {}).get("viewer") == raw["viewer"]:
                applied.update({s["id"]: f["t"] for s in raw["sent"] if s["id"] <= f["input"]["id"]})
    shift = watcher.evaluate("performance.timeOrigin") - raw["origin"]
    return [s["ms"] for s in driver_to_watcher(raw["sent"], applied, entries, shift)]


def staleness(entries: list[dict], arrivals: list[list[float]]) -> list[tuple[float, float]]:
    """(page time drawn, how stale the page's newest mark was at that display frame beyond the
    fastest mark's delay, ms) for each display frame in motion: what a watcher's clock must cover
    there to draw without waiting (docs/measures.md). Unlike a mark's one-way delay it also sees
    the room sending nothing for a while: a loaded server's stall sends its next frame on time
    but after a gap, which no one-way delay shows. Only where the room still moved at that mark
    (more marks were on their way): a watcher drawing the end of a fling after the room came to
    rest waits for nothing. From the records of what arrived, not the clock's state."""
    if not arrivals:
        return []
    base = min(a[0] - a[1] for a in arrivals)
    out, i, newest, room_moving = [], 0, None, False
    for e, moving in zip(entries, motion(entries)):
        while i < len(arrivals) and arrivals[i][0] <= e["at"]:
            if newest is None or arrivals[i][1] >= newest:
                newest, room_moving = arrivals[i][1], arrivals[i][2]
            i += 1
        if moving and room_moving and newest is not None:
            out.append((e["at"], e["vsync"] - newest - base))
    return out


def record_staleness(page, end: int) -> list[tuple[float, float]]:
    """`staleness` over the page's record from its first display frame to `end`: what the
    watcher's clock has seen, its window reaching back before a measured span (`clock_lag_bound`'s
    `history`). Only the record and the marks' arrivals are read: nothing else of `watcher_delays`."""
    arrivals = page.evaluate("window.scrollcast.test.watchClock?.()?.arrivals ?? []")
    return staleness(record(page, 0, end), arrivals)


def staleness_p99(delays: dict) -> float:
    """The p99 of the mark's staleness at a watcher's display frames in motion (ms, `staleness`)."""
    return nearest_rank([d for _, d in delays["staleness"]], 0.99)


# The watcher's clock keeps the staleness of this many display frames in motion (NEED_WINDOW in
# Public/js/replica/watch-clock.js).
CLOCK_WINDOW = 600


def windowed_need(history: list[tuple[float, float]], since: float, q: float = 0.99) -> float:
    """The most a watcher's clock could ask for at a display frame drawn at or after page time
    `since`: the q-quantile of the staleness at the CLOCK_WINDOW display frames in motion up to
    that one, as the clock keeps it. `history`: `staleness` of the page's whole record, so that
    what the clock saw before a measured span counts as it does for the clock (stalls there keep
    its delay up into the span)."""
    values = [d for _, d in history]
    return max((nearest_rank(values[max(0, k + 1 - CLOCK_WINDOW):k + 1], q)
                for k, (at, _) in enumerate(history) if at >= since), default=0.0)


def clock_lag_bound(delays: dict, prior: float, history: list[tuple[float, float]] | None = None,
                    frame_ms: float = 1000 / 60) -> float:
    """The most a watcher's true lag may read (ms; test_page_replica.py, docs/measures.md): the
    fastest mark's delay plus the p99 of the mark's staleness at its display frames in motion, or
    plus its prior while in force, whichever is larger, plus three display frames. With `history`
    (the whole record's `staleness`), the p99 is also taken as the clock takes it, over its window
    at each display frame of the span, the largest counting."""
    need = staleness_p99(delays)
    if history and delays["staleness"]:
        need = max(need, windowed_need(history, delays["staleness"][0][0]))
    return min(delays["oneWay"]) + max(need, prior) + 3 * frame_ms


def judder_waiting_beyond(entries: list[dict], stale: list[tuple[float, float]], q: float = 0.99) -> tuple[int, int]:
    """(clock judder pairs as docs/measures.md defines them, those of them at a display frame whose
    newest mark was staler than the q-quantile of its staleness at the display frames before it:
    what a clock built on that quantile could not have covered). `stale`: (page time drawn,
    staleness), in drawing order (`staleness`)."""
    moving = motion(entries)
    at = dict(stale)
    seen: list[float] = []
    pairs = explained = 0
    for i in range(1, len(entries)):
        prev, cur = entries[i - 1], entries[i]
        interval, step = cur["vsync"] - prev["vsync"], cur["t"] - prev["t"]
        judders = i >= 2 and moving[i] and moving[i - 1] and not 0.75 * interval <= step <= 1.25 * interval
        if judders:
            pairs += 1
            explained += cur["at"] in at and bool(seen) and at[cur["at"]] > nearest_rank(seen, q)
        if cur["at"] in at:
            seen.append(at[cur["at"]])
    return pairs, explained


def record_total(page) -> int:
    """How many display frames the page has recorded since it loaded."""
    return page.evaluate("() => { const r = window.scrollcast.drawnRecord(1); return r.length ? r[0].n + 1 : 0; }")


def record(page, start: int = 0, end: int | None = None) -> list[dict]:
    """The drawn record's entries with index in [start, end), as plain dicts."""
    return page.evaluate("([a, b]) => window.scrollcast.drawnSince(a, b ?? undefined)", [start, end])


def fling(sc, steps: int = FLING_STEPS, attempts: int = 5, must_fly: bool = True) -> tuple[int, int]:
    """Flings `sc` (a page_fixtures.ScrollcastPage at rest) and waits for rest again; returns the
    [start, end) indices of the display frames recorded meanwhile. On a machine so loaded that
    the drag's last move comes long before its release, the release has no speed and nothing
    flies: that drag is not a fling, and a quicker one (fewer steps) is tried, five in all (three
    read "no fling" once in a fresh-clone run at load 4-6; a drag that does not fly costs only
    its own time). Real mouse input, not ScrollcastPage.fling's events made in the page: the
    measures time the browser's own. Without `must_fly`, for a test that wants the drag's inputs
    more than the flight, the last drag's span is returned even if nothing flew."""
    for attempt in range(attempts):
        start = record_total(sc.page)
        sc.mouse_drag(*FLING, steps=steps)
        released = sc.state("s.lastInputId")
        sc.wait("(s, up) => s.lastFrame.input !== null && s.lastFrame.input.id >= up", released)
        flying = sc.state("s.lastFrame.phase") in ("decelerating", "bouncing")
        sc.wait_idle()
        if flying or (not must_fly and attempt == attempts - 1):
            return start, record_total(sc.page)
        steps = max(2, steps // 2)
    raise AssertionError(f"no fling in {attempts} drags: each release came with no speed")


def measured(page, span: tuple[int, int] | None = None) -> tuple[dict, dict, list[dict], list[dict]]:
    """(the page's measures over the span, the Python recomputation from the raw record, the
    span's entries, the pointer inputs sent), read in one task so all see the same state. Without
    a span: the whole record."""
    start, end = span or (0, None)
    raw = page.evaluate("""([a, b]) => ({ figures: window.scrollcast.measuresOf(a, b ?? undefined),
        entries: window.scrollcast.drawnSince(a, b ?? undefined), sent: window.scrollcast.sentPointerInputs() })""",
                        [start, end])
    return raw["figures"], picture_measures(raw["entries"], raw["sent"]), raw["entries"], raw["sent"]


def picture_samples(page) -> list[dict]:
    """Input-to-picture samples ({id, ms}) recomputed from the whole record and the inputs sent."""
    raw = page.evaluate("() => ({ all: window.scrollcast.drawnRecord(), sent: window.scrollcast.sentPointerInputs() })")
    return input_to_picture(raw["all"], raw["sent"])


def first_frame_ms(page) -> float:
    """Page load (navigation start) to the first display frame showing a server frame, ms."""
    page.wait_for_function("window.scrollcast && window.scrollcast.firstFrameAt() !== null")
    return page.evaluate("window.scrollcast.firstFrameAt()")


def assert_same_figures(page_figures: dict, expected: dict):
    """The page's measures equal the Python recomputation, figure by figure."""
    for key, value in expected.items():
        if isinstance(value, dict):
            for k, v in value.items():
                assert page_figures[key][k] == pytest.approx(v), (key, k, page_figures[key], value)
        else:
            assert page_figures[key] == value, (key, page_figures, expected)


def summary(figures: dict, photon: list[float]) -> str:
    """One line of figures for a test's output."""
    w, c, p, lag = figures["wrong"], figures["clock"], figures["picture"], figures["lag"]
    return (f"wrong {w['wrong']}/{w['judged']} (max {w['largestPt']}), clock judder {c['pct']:.1f} % "
            f"({c['freezes']} freezes, {c['slowdowns']} slowdowns, {c['jumps']} jumps), picture judder {p['pct']}, "
            f"input-to-picture p50 {nearest_rank(photon, 0.5)} p99 {nearest_rank(photon, 0.99)} ms, lag p50 {lag['p50']}")
