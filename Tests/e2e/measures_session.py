"""Driving a page and reading its measures (docs/measures.md): shared by
Tests/e2e/test_page_measures*.py and bench/links.py, so the benchmark measures a fling exactly as
the tests check it."""

from __future__ import annotations

from measures_recompute import input_to_photon_samples, judder

# A quick drag up the long table and release: momentum, then rest (viewport pt).
FLING = (200, 720, 200, 140)
FLING_STEPS = 6


def record_total(page) -> int:
    """How many display frames the page has recorded since it loaded."""
    return page.evaluate("() => { const r = window.scrollcast.drawnRecord(1); return r.length ? r[0].n + 1 : 0; }")


def record(page, start: int = 0, end: int | None = None) -> list[dict]:
    """The drawn record's entries with index in [start, end), as plain dicts."""
    return page.evaluate("([a, b]) => window.scrollcast.drawnSince(a, b ?? undefined)", [start, end])


def fling(sc, steps: int = FLING_STEPS, attempts: int = 3) -> tuple[int, int]:
    """Flings `sc` (a page_fixtures.ScrollcastPage at rest) and waits for rest again; returns the
    [start, end) indices of the display frames recorded meanwhile. On a machine so loaded that
    the drag's last move comes long before its release, the release has no speed and nothing
    flies: that drag is not a fling, and a quicker one (fewer steps) is tried."""
    for _ in range(attempts):
        start = record_total(sc.page)
        sc.drag(*FLING, steps=steps)
        released = sc.state("s.lastInputId")
        sc.wait("(s, up) => s.lastFrame.input !== null && s.lastFrame.input.id >= up", released)
        flying = sc.state("s.lastFrame.phase") in ("decelerating", "bouncing")
        sc.wait_idle()
        if flying:
            return start, record_total(sc.page)
        steps = max(2, steps // 2)
    raise AssertionError(f"no fling in {attempts} drags: each release came with no speed")


def fling_judder(page, span: tuple[int, int]) -> tuple[dict, list[dict], dict]:
    """(the page's judder over the span, the span's entries, the Python recomputation)."""
    entries = record(page, *span)
    return page.evaluate("([a, b]) => window.scrollcast.judderOf(a, b)", list(span)), entries, judder(entries)


def photon(page) -> tuple[list[dict], list[dict]]:
    """(the page's input-to-photon samples, the Python recomputation from the record and the
    pointer inputs sent), read in one task so both see the same state."""
    raw = page.evaluate("""() => ({ samples: window.scrollcast.inputToPhotonSamples(),
        sent: window.scrollcast.sentPointerInputs(), all: window.scrollcast.drawnRecord() })""")
    return raw["samples"], input_to_photon_samples(raw["all"], raw["sent"])


def first_frame_ms(page) -> float:
    """Page load (navigation start) to the first display frame showing a server frame, ms."""
    page.wait_for_function("window.scrollcast && window.scrollcast.firstFrameAt() !== null")
    return page.evaluate("window.scrollcast.firstFrameAt()")
