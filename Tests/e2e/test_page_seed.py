"""The seed's own demo in the browser (scroll-to-row-near-edges.txt): a room created with
?scene=seed-table shows the DemoTable (20 rows "Option 0" … "Option 19", 44 pt navigation bar,
row 19 checked), and the controls' "Scroll to row" brings rows 0, 10 and 19 to "middle" entirely
into view below the bar, animated or not."""

import re

import pytest

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)


def open_seed_table(page, base_url, room) -> ScrollcastPage:
    sc = ScrollcastPage(page, base_url, room).open("&scene=seed-table")
    sc.wait("s => s.sceneName === 'seed-table'")
    sc.wait_idle()
    return sc


def ink(sc: ScrollcastPage, x: float, y: float, w: float, h: float) -> float:
    """How far a viewport-pt rectangle's pixels stray from their own median luminance, at most
    (0–255): text or a mark drawn there gives a large value, an empty stretch of cell a small one."""
    return sc.page.evaluate(
        """([x, y, w, h]) => {
             const c = document.getElementById('view');
             const k = c.width / window.scrollcast.state.lastFrame.viewport.width;
             const d = c.getContext('2d').getImageData(Math.round(x * k), Math.round(y * k),
                                                       Math.max(1, Math.round(w * k)), Math.max(1, Math.round(h * k))).data;
             const l = [];
             for (let i = 0; i < d.length; i += 4) l.push(0.2126 * d[i] + 0.7152 * d[i + 1] + 0.0722 * d[i + 2]);
             const sorted = [...l].sort((a, b) => a - b);
             const median = sorted[sorted.length >> 1];
             return Math.max(...l.map(v => Math.abs(v - median)));
           }""", [x, y, w, h])


@pytest.mark.parametrize("row", [0, 10, 19])
@pytest.mark.parametrize("animated", [False, True])
def test_seed_table_scroll_to_row_middle_shows_the_row_entirely(page, page_server, room, artifacts, row, animated):
    artifacts.watch(page)
    sc = open_seed_table(page, page_server.base_url, room)
    assert sc.state("s.order") == [list(range(20))]
    assert page.locator("#scene-name").inner_text() == "seed-table"

    page.fill("#scroll-section", "0")
    page.fill("#scroll-row", str(row))
    page.select_option("#scroll-position", "middle")
    page.set_checked("#scroll-animated", animated)
    sent_before = sc.state("s.lastInputId")
    page.click("#scroll-go")
    sc.wait("(s, n) => s.lastInputId > n", sent_before)
    sent = sc.state("s.lastInputId")
    # At rest after our scroll: the drawn frame names it (or later input) and nothing animates.
    sc.wait("(s, id) => s.lastFrame.input && s.lastFrame.input.id >= id && !s.lastFrame.animating", sent)

    frame = sc.frame()
    insets = sc.insets()
    match = [r for r in frame["rows"] if r["s"] == 0 and r["r"] == row]
    assert match, f"row {row} is not in the frame"
    r = match[0]
    assert r["title"] == f"Option {row}"
    # scroll-to-row-near-edges.txt: the row ends entirely below the 44 pt bar and above the bottom.
    assert insets["top"] == 44
    assert r["y"] >= insets["top"], r
    assert r["y"] + r["h"] <= frame["viewport"]["height"], r
    if row == 19:
        assert r["detail"] == "✓"

    # On screen: inside the canvas and the window, and drawn — the title's pixels are ink, unlike
    # the empty middle of the same cell; the checked row shows its checkmark at the right.
    box = page.locator("#view").bounding_box()
    _, top = sc.client_point(0, r["y"])
    _, bottom = sc.client_point(0, r["y"] + r["h"])
    assert box["y"] - 0.5 <= top and bottom <= box["y"] + box["height"] + 0.5
    assert bottom <= page.viewport_size["height"]
    width = frame["viewport"]["width"]
    title_ink = ink(sc, 14, r["y"] + 8, 90, r["h"] - 16)
    blank = ink(sc, 180, r["y"] + 6, 120, r["h"] - 12)
    # The background's pictures (clouds, altitude labels) show faintly through a cell; text is
    # drawn at full contrast.
    assert title_ink > 120 and blank < title_ink - 60, (title_ink, blank)
    if row == 19:
        assert ink(sc, width - 34, r["y"] + 10, 20, r["h"] - 20) > 120, "the checkmark is drawn"
    shot = artifacts.screenshot(page, f"seed-row-{row}-{'animated' if animated else 'instant'}")
    assert shot.stat().st_size > 0


def test_seed_link_opens_a_fresh_seed_table_room(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    assert page.locator("#scene-name").inner_text() == "demo"
    link = page.locator("#seed-link")
    assert link.inner_text() == "Open the seed's 20-row table"
    link.click()
    page.wait_for_url(re.compile(r"[?&]scene=seed-table"))
    sc.wait("s => s.joined && s.sceneName === 'seed-table' && s.lastFrame !== null")
    new_room = sc.state("s.room")
    assert new_room != room and new_room.startswith("seed-")
    assert sc.state("s.viewers") == 1, "a fresh room"
    assert page.locator("#scene-name").inner_text() == "seed-table"
    # The form now fits the 20-row table: section 0, the seed's row 19.
    assert page.input_value("#scroll-section") == "0" and page.input_value("#scroll-row") == "19"
    assert "scene=seed-table" in page.locator("#share-link").get_attribute("href")
    artifacts.screenshot(page, "seed-table-from-link")


def test_a_second_browser_joins_the_rooms_scene_without_asking(browser, page_server, room, artifacts):
    ctx_a, ctx_b = browser.new_context(), browser.new_context()
    a = ScrollcastPage(artifacts.watch(ctx_a.new_page(), "creator"), page_server.base_url, room).open("&scene=seed-table")
    b = ScrollcastPage(artifacts.watch(ctx_b.new_page(), "joiner"), page_server.base_url, room).open()
    assert b.state("s.requestedScene") is None
    b.wait("s => s.sceneName === 'seed-table'")
    assert b.state("s.order") == [list(range(20))]
    assert b.page.locator("#scene-name").inner_text() == "seed-table"
    ctx_a.close()
    ctx_b.close()


def test_an_unknown_scene_is_refused_and_not_retried(page, page_server, room, artifacts):
    artifacts.watch(page)
    page.goto(f"{page_server.base_url}/?room={room}&scene=nonsense")
    sc = ScrollcastPage(page, page_server.base_url, room)
    sc.wait("s => s.joinRefused !== null")
    banner = page.locator("#banner")
    assert banner.is_visible()
    text = banner.inner_text()
    assert "refused" in text and "demo, seed-table" in text and "nonsense" in text
    assert sc.state("s.reconnectAttempt") == 0 and not sc.state("s.joined")
    artifacts.screenshot(page, "unknown-scene")
