"""The driver's input-to-photon counted in display frames (docs/measures.md; the issue's bound
is p50 ≤ one display frame, p99 ≤ two): for each pointer input the page measured, how many
display frames the page recorded from the event up to and including the one that showed it."""

from __future__ import annotations

from measures_recompute import nearest_rank


def frames_to_show(page) -> list[dict]:
    """[{id, ms, frames}] for the pointer inputs the page has seen shown, oldest first."""
    raw = page.evaluate("""() => ({ samples: window.scrollcast.inputToPhotonSamples(),
        sent: window.scrollcast.sentPointerInputs(), all: window.scrollcast.drawnRecord() })""")
    sent = {s["id"]: s["t"] for s in raw["sent"]}
    out = []
    for sample in raw["samples"]:
        t = sent.get(sample["id"])
        if t is None:
            continue
        shown = t + sample["ms"]
        vsyncs = {e["vsync"] for e in raw["all"] if t < e["at"] <= shown + 1e-6}
        out.append({"id": int(sample["id"]), "ms": sample["ms"], "frames": len(vsyncs)})
    return out


def assert_within_the_bound(samples: list[dict], label: str):
    """p50 ≤ one display frame, p99 ≤ two, and (the first input in particular) none later."""
    assert samples, f"{label}: no input-to-photon samples"
    frames = [s["frames"] for s in samples]
    detail = f"{label}: (id, display frames, ms) {[(s['id'], s['frames'], round(s['ms'])) for s in samples]}"
    assert nearest_rank(frames, 0.5) <= 1 and nearest_rank(frames, 0.99) <= 2, detail
    assert samples[0]["frames"] <= 2, detail


def ms_summary(samples: list[dict]) -> str:
    ms = [s["ms"] for s in samples]
    return f"p50 {nearest_rank(ms, 0.5):.1f} ms, p99 {nearest_rank(ms, 0.99):.1f} ms, first {samples[0]['ms']:.1f} ms ({len(ms)} inputs)"
