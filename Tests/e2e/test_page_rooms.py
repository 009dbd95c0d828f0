"""Shared rooms: moving a row by tap-and-hold (info-panel-and-row-moving.txt) shows in another
browser, the other viewer is refused while one drives, scroll-to-row
(scroll-to-row-near-edges.txt), and reconnecting after a server restart."""

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, own_page_server, page_server, room,
)

LONG_PRESS_MS = 700  # the gesture itself: the server lifts a row after 0.5 s held within 10 pt


def test_long_press_moves_a_row_and_another_browser_sees_it(browser, page_server, room, artifacts):
    ctx_a, ctx_b = browser.new_context(), browser.new_context()
    a = ScrollcastPage(artifacts.watch(ctx_a.new_page(), "driver"), page_server.base_url, room).open()
    b = ScrollcastPage(artifacts.watch(ctx_b.new_page(), "watcher"), page_server.base_url, room).open()
    a.wait("s => s.viewers === 2")
    a.wait_idle()
    order_before = a.state("s.order")
    assert order_before == b.state("s.order")

    frame = a.frame()
    insets = a.insets()
    # A row fully on screen, well below the pinned header, with rows below it to pass.
    candidates = [r for r in frame["rows"] if r["y"] > insets["top"] + 250 and r["y"] + r["h"] < 600]
    row = candidates[0]
    section, index, row_id = row["s"], row["r"], row["id"]
    x, y = 200, row["y"] + row["h"] / 2

    page = a.page
    page.mouse.move(*a.client_point(x, y))
    page.mouse.down()
    page.wait_for_timeout(LONG_PRESS_MS)
    a.wait("(s, id) => s.lastFrame.lifted !== null", row_id)
    b.wait("(s, v) => s.driver === v", a.state("s.viewer"))
    lifted_a = a.frame()["lifted"]
    assert (lifted_a.get("row") or lifted_a)["id"] == row_id

    # The watcher sees the lifted row too, and its own input is refused while A holds the room.
    b.wait("s => s.lastFrame.lifted !== null")
    b.page.mouse.move(*b.client_point(200, 400))
    b.page.mouse.wheel(0, 100)
    b.wait("s => s.refusedCount >= 1")
    assert b.page.locator("#toast").is_visible()
    assert "driving" in b.page.locator("#toast").inner_text()
    artifacts.screenshot(b.page, "watcher-refused-toast")

    # Drag the lifted row down past two neighbours, then drop it.
    target_y = y + 2.6 * row["h"]
    page.mouse.move(*a.client_point(x, target_y), steps=12)
    a.wait("(s, r) => s.lastFrame.placeholder && s.lastFrame.placeholder.r >= r + 2", index)
    artifacts.screenshot(page, "row-lifted")
    page.mouse.up()

    a.wait("s => s.rowMoves >= 1")
    b.wait("s => s.rowMoves >= 1")
    order_a = a.state("s.order")
    order_b = b.state("s.order")
    assert order_a == order_b
    new_index = order_b[section].index(row_id)
    assert new_index >= index + 2, (index, new_index)
    assert order_b != order_before

    # B draws the new order: once the drop settles, its frame lists the row at its new place.
    b.wait("(s, id) => !s.lastFrame.lifted && s.lastFrame.rows.some(r => r.id === id)", row_id)
    b.wait("s => !s.lastFrame.animating")
    drawn = {r["id"]: r["r"] for r in b.frame()["rows"] if r["s"] == section}
    assert drawn[row_id] == new_index
    artifacts.screenshot(b.page, "watcher-after-move")
    ctx_a.close()
    ctx_b.close()


def _row_entirely_visible(sc: ScrollcastPage, section: int, row: int) -> dict:
    frame = sc.frame()
    insets = sc.insets()
    match = [r for r in frame["rows"] if r["s"] == section and r["r"] == row]
    assert match, f"row {section}/{row} is not in the frame"
    r = match[0]
    assert r["y"] >= insets["top"] - 0.5, "below the top inset"
    assert r["y"] + r["h"] <= frame["viewport"]["height"] - insets["bottom"] + 0.5, "above the bottom"
    # On screen too: the row's drawn rectangle lies inside the canvas and the window.
    box = sc.page.locator("#view").bounding_box()
    x0, y0 = sc.client_point(0, r["y"])
    x1, y1 = sc.client_point(frame["viewport"]["width"], r["y"] + r["h"])
    assert box["y"] - 0.5 <= y0 and y1 <= box["y"] + box["height"] + 0.5
    assert y1 <= sc.page.viewport_size["height"]
    return r


def _index_path_of_table_row(order: list[list[int]], n: int) -> tuple[int, int]:
    """Section and row of the table's n-th row (0-based) counting across sections."""
    for section, rows in enumerate(order):
        if n < len(rows):
            return section, n
        n -= len(rows)
    raise AssertionError("the table has fewer rows")


def test_scroll_to_row_19_middle_from_the_controls(page, page_server, room, artifacts):
    """The seed's DemoTable scrolls to row 19 of 20, middle. The demo scene groups its rows by day
    (3-7 a section), so "row 19" here is the table's 20th row, wherever its day puts it."""
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    sc.wait_idle()
    section, row = _index_path_of_table_row(sc.state("s.order"), 19)
    page.fill("#scroll-section", str(section))
    page.fill("#scroll-row", str(row))
    page.select_option("#scroll-position", "middle")
    page.uncheck("#scroll-animated")
    page.click("#scroll-go")
    sc.wait("(s, a) => s.lastFrame.rows.some(r => r.s === a[0] && r.r === a[1]) && !s.lastFrame.animating",
            [section, row])
    assert sc.state("s.inputsByKind.scrollToRow") == 1
    r = _row_entirely_visible(sc, section, row)
    frame = sc.frame()
    insets = sc.insets()
    middle = insets["top"] + (frame["viewport"]["height"] - insets["top"] - insets["bottom"]) / 2
    # scroll-to-row-near-edges.txt, middle: the row's centre at the middle of the visible area.
    assert abs(r["y"] + r["h"] / 2 - middle) < 1, (r, middle)
    artifacts.screenshot(page, "scrolled-to-row-19-middle")


def test_scroll_to_the_last_row_animated_brings_it_fully_into_view(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    sc.wait_idle()
    order = sc.state("s.order")
    section = len(order) - 1
    row = len(order[section]) - 1
    page.fill("#scroll-section", str(section))
    page.fill("#scroll-row", str(row))
    page.select_option("#scroll-position", "top")   # impossible near the end: the offset clamps
    page.check("#scroll-animated")
    page.click("#scroll-go")
    sc.wait("(s, a) => s.lastFrame.rows.some(r => r.s === a[0] && r.r === a[1]) && !s.lastFrame.animating",
            [section, row])
    _row_entirely_visible(sc, section, row)
    artifacts.screenshot(page, "scrolled-to-last-row")


def test_scroll_to_row_rejects_numbers_outside_the_table(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    sent = sc.state("s.inputsSent")
    page.fill("#scroll-section", "0")
    page.fill("#scroll-row", "999999")
    page.click("#scroll-go")
    assert "Row must be" in page.locator("#scroll-status").inner_text()
    assert sc.state("s.inputsSent") == sent


def test_page_reconnects_after_the_server_restarts(page, own_page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, own_page_server.base_url, room).open()
    drawn = sc.state("s.framesDrawn")

    own_page_server.stop()
    sc.wait("s => !s.connected")
    # The picture stays; "reconnecting" shows once the loss has lasted 500 ms.
    sc.wait("s => s.reconnecting")
    assert page.locator("#banner").is_visible()
    assert "Disconnected" in page.locator("#banner").inner_text()
    artifacts.screenshot(page, "disconnected-banner")

    own_page_server.start(own_page_server.port)
    sc.wait("s => s.connected && s.joined && s.snapshots >= 2", timeout=30000)
    sc.wait("(s, n) => s.framesDrawn > n", drawn)
    assert not page.locator("#banner").is_visible()

    # And it is live again: input scrolls.
    start = sc.frame()["offset"]
    page.mouse.move(*sc.client_point(200, 400))
    page.mouse.wheel(0, 300)
    sc.wait("(s, b) => s.lastFrame.offset > b + 50", start)
    artifacts.screenshot(page, "reconnected")
