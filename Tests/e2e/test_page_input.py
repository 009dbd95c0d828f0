"""The page's input plumbing, checked in the browser: pacing under the server's rate limit
(docs/protocol.md: 240/s sustained, bursts of 120), key mapping, wheel delta modes, timestamps
that never go backwards, and the overlay's statistics."""

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)

# Runs in the page: an InputSender with a fake clock and a recording transmit.
PACING = """async () => {
  const { InputSender } = await import('/js/input.js');
  let now = 0;
  const sent = [];
  const sender = new InputSender({ transmit: (m) => { sent.push({ ...m, at: now }); return true; }, now: () => now });
  // One second of a 1000 Hz mouse, coalesced samples included, with a down and an up.
  sender.sendNow('pointerDown', { x: 10, y: 500 }, 0);
  for (let i = 1; i <= 1000; i++) { now = i; sender.sendMove({ x: 10, y: 500 - i * 0.3 }, i); }
  sender.sendNow('pointerUp', { x: 10, y: 200 }, 1000.5);
  // A wheel burst: 300 notches in 300 ms must add up exactly.
  for (let i = 0; i < 300; i++) { now = 1001 + i; sender.sendWheel({ dx: 0, dy: 4, mode: 'pixel' }, now); }
  now = 5000; sender.flushPending();
  return sent;
}"""


def _refusals(times, capacity, per_second):
    """How many of the inputs sent at `times` (ms) a token bucket like the server's would refuse."""
    tokens, last, refused = capacity, times[0] if times else 0, 0
    for t in times:
        tokens = min(capacity, tokens + (t - last) / 1000 * per_second)
        last = t
        if tokens >= 1:
            tokens -= 1
        else:
            refused += 1
    return refused


def test_input_pacing_stays_under_the_server_limit_and_loses_nothing_that_matters(page, page_server, room, artifacts):
    artifacts.watch(page)
    ScrollcastPage(page, page_server.base_url, room).open()
    sent = page.evaluate(PACING)

    kinds = [m["kind"] for m in sent]
    assert kinds[0] == "pointerDown" and kinds.count("pointerDown") == 1 and kinds.count("pointerUp") == 1
    up = kinds.index("pointerUp")
    moves = [m for m in sent[:up] if m["kind"] == "pointerMove"]
    # The last move before the up carries the final position: merged moves keep the newest sample.
    assert abs(moves[-1]["y"] - 200) < 1e-9 and moves[-1]["t"] == 1000
    ids = [m["id"] for m in sent]
    assert ids == sorted(ids) and len(set(ids)) == len(ids), "ids increase"
    stamps = [m["t"] for m in sent]
    assert stamps == sorted(stamps), "timestamps never go backwards"

    times = [m["at"] for m in sent]
    assert _refusals(times, 120, 240) == 0, "the server's bucket (bursts of 120, 240/s) never refuses"
    assert _refusals(times, 100, 220) == 0, "nor would a bucket with a 15% margin"
    assert len(moves) > 200, "moves are paced at about 200/s, not starved"

    wheel = [m for m in sent if m["kind"] == "wheel"]
    assert sum(m["dy"] for m in wheel) == 300 * 4, "merged wheel deltas add up exactly"
    assert all(m["mode"] == "pixel" for m in wheel)


def test_scroll_keys_map_to_protocol_commands(page, page_server, room, artifacts):
    artifacts.watch(page)
    ScrollcastPage(page, page_server.base_url, room).open()
    mapped = page.evaluate("""async () => {
      const { keyCommand } = await import('/js/input.js');
      const k = (key, extra = {}) => keyCommand(new KeyboardEvent('keydown', { key, ...extra }));
      return [k('ArrowUp'), k('ArrowDown'), k('PageUp'), k('PageDown'), k('Home'), k('End'),
              k(' '), k(' ', { shiftKey: true }), k('a'), k('ArrowDown', { ctrlKey: true })];
    }""")
    assert mapped == ["arrowUp", "arrowDown", "pageUp", "pageDown", "home", "end", "space", "shiftSpace", None, None]


def test_wheel_in_line_and_page_modes_scrolls(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    sc.wait_idle()
    start = sc.frame()["offset"]
    # Firefox-style line deltas (deltaMode 1), then a page delta (deltaMode 2).
    page.evaluate("""() => document.getElementById('view').dispatchEvent(
        new WheelEvent('wheel', { deltaY: 3, deltaMode: 1, bubbles: true, cancelable: true }))""")
    sc.wait("(s, b) => s.lastFrame.offset > b + 20 && !s.lastFrame.animating", start)
    after_lines = sc.frame()["offset"]
    prevented = page.evaluate("""() => !document.getElementById('view').dispatchEvent(
        new WheelEvent('wheel', { deltaY: 1, deltaMode: 2, bubbles: true, cancelable: true }))""")
    assert prevented, "the page takes the wheel (preventDefault) instead of scrolling the document"
    sc.wait("(s, b) => s.lastFrame.offset > b + 300 && !s.lastFrame.animating", after_lines)
    assert sc.state("s.inputsByKind.wheel") == 2


def test_rolling_window_rate_and_quantiles(page, page_server, room, artifacts):
    artifacts.watch(page)
    ScrollcastPage(page, page_server.base_url, room).open()
    result = page.evaluate("""async () => {
      const { RollingWindow } = await import('/js/stats.js');
      const w = new RollingWindow(5000);
      for (let i = 1; i <= 100; i++) w.add(i * 10, i);        // values 1..100 over 1 s
      const inside = { median: w.quantile(1000, 0.5), p99: w.quantile(1000, 0.99), rate: w.rate(1000) };
      const later = { median: w.quantile(5500, 0.5), empty: w.quantile(20000, 0.5) };
      return { inside, later };
    }""")
    assert result["inside"]["median"] == 50 and result["inside"]["p99"] == 99
    assert abs(result["inside"]["rate"] - 100) < 0.5
    assert result["later"]["median"] == 75, "samples older than the window are dropped"
    assert result["later"]["empty"] is None
