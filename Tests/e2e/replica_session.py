"""Driving a page that runs the replica (docs/wasm.md) and reading it: shared by
Tests/e2e/test_page_replica*.py. The driver's input-to-picture is counted in display frames
(docs/measures.md; the issue's bound, asserted: p50 ≤ one display frame, p99 ≤ two): for each pointer
input, how many display frames the page recorded from the event up to and including the first
that showed it right."""

from __future__ import annotations

from measures_recompute import input_to_picture, nearest_rank


def replica(sc) -> dict:
    """window.scrollcast.state.replica of a page_fixtures.ScrollcastPage."""
    return sc.state("s.replica")


def assert_no_mismatch(sc, label: str):
    r = replica(sc)
    assert r["enabled"], f"{label}: replica disabled: {r.get('error')}"
    assert r["mismatches"] == 0, f"{label}: server frames differ from the replica's: {r['mismatchLog']}"
    assert r["compared"] == r["identical"], r


def wait_running(sc, timeout: float = 20000):
    sc.wait("s => s.replica.enabled === false || s.replica.running", timeout=timeout)
    r = replica(sc)
    assert r["running"], f"the replica did not start: {r}"


def row_point(sc, near_y: float = 300) -> tuple[float, float]:
    """A point (view points) in the middle of the row nearest `near_y` that no section header
    covers: after a fling the table rests anywhere, and a press on a header lifts nothing."""
    frame = sc.frame()
    headers = frame.get("headers") or []

    def covered(row) -> bool:
        return any(h["y"] < row["y"] + row["h"] and row["y"] < h["y"] + h["h"] for h in headers)

    rows = [r for r in frame.get("rows") or [] if not covered(r) and 150 <= r["y"] + r["h"] / 2 <= 450]
    assert rows, f"no row to press between 150 and 450 pt: rows {frame.get('rows')}, headers {headers}"
    row = min(rows, key=lambda r: abs(r["y"] + r["h"] / 2 - near_y))
    return 200, row["y"] + row["h"] / 2


def move_a_row(driver, *others):
    """Holds a row until it lifts, carries it down in eight moves, drops it; waits until the
    driver and every page of `others` have the server's `rowMoved` and are at rest."""
    moves = driver.state("s.rowMoves")
    x, y = driver.client_point(*row_point(driver))
    driver.page.mouse.move(x, y)
    driver.page.mouse.down()
    try:
        driver.wait("s => s.lastFrame.lifted !== null", timeout=10000)
    except Exception as error:
        raise AssertionError(f"the held row never lifted: pressed at {x:.0f},{y:.0f} px; last frame "
                             f"{driver.frame()}; replica {replica(driver)}") from error
    for step in range(1, 9):
        driver.page.mouse.move(x, y + step * 20)
        driver.page.wait_for_timeout(16)  # pacing of the pointer moves, not a synchronisation
    driver.page.mouse.up()
    for sc in (driver, *others):
        sc.wait("(s, m) => s.rowMoves > m", moves)
        sc.wait_idle()


def wheel_and_keys(driver):
    """A wheel burst over the table, then PageDown and Home, each until rest."""
    driver.page.mouse.move(*driver.client_point(200, 400))
    for _ in range(6):
        driver.page.mouse.wheel(0, 120)
    driver.wait_settled()
    driver.page.focus("#view")
    driver.page.keyboard.press("PageDown")
    driver.wait_settled()
    driver.page.keyboard.press("Home")
    driver.wait_settled()


def frames_to_show(page) -> list[dict]:
    """[{id, ms, frames}] for the pointer inputs the page has shown right (input-to-picture,
    docs/measures.md), oldest first: how many display frames from the event up to and including
    the one that showed it."""
    raw = page.evaluate("() => ({ all: window.scrollcast.drawnRecord(), sent: window.scrollcast.sentPointerInputs() })")
    sent = {s["id"]: s["t"] for s in raw["sent"]}
    out = []
    for sample in input_to_picture(raw["all"], raw["sent"]):
        t = sent[sample["id"]]
        shown = t + sample["ms"]
        vsyncs = {e["vsync"] for e in raw["all"] if t < e["at"] <= shown + 1e-6}
        out.append({"id": int(sample["id"]), "ms": sample["ms"], "frames": len(vsyncs)})
    return out


def within_the_bound(samples: list[dict], p99_frames: int = 2) -> bool:
    """Input-to-picture, counted in display frames, within the issue's bound: p50 ≤ one, p99 ≤ two
    (or `p99_frames`)."""
    frames = [s["frames"] for s in samples]
    return bool(frames) and nearest_rank(frames, 0.5) <= 1 and nearest_rank(frames, 0.99) <= p99_frames


def assert_within_the_bound(samples: list[dict], label: str, p99_frames: int = 2):
    """The issue's bound (p50 one display frame, p99 two): a driver that stamps its inputs with the
    room time it drew them (`at`) sees each on the next display frame, right. No page drawing
    server frames can do that through 4g (its p50 there is seven, its least five), nor a driver
    whose inputs the room places elsewhere (test_page_driver_on_time.py)."""
    assert samples, f"{label}: no input-to-picture samples"
    detail = f"{label}: (id, display frames, ms) {[(s['id'], s['frames'], round(s['ms'])) for s in samples]}"
    assert within_the_bound(samples, p99_frames), detail


def ms_summary(samples: list[dict]) -> str:
    ms = [s["ms"] for s in samples]
    frames = [s["frames"] for s in samples]
    return (f"p50 {nearest_rank(ms, 0.5):.1f} ms, p99 {nearest_rank(ms, 0.99):.1f} ms, first {samples[0]['ms']:.1f} ms "
            f"({len(ms)} inputs; display frames p50 {nearest_rank(frames, 0.5)}, p99 {nearest_rank(frames, 0.99)})")
