"""The page draws what the server's frames say: first frame, HiDPI canvas, images, layout."""

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)


def test_first_frame_is_drawn_with_scene_images(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()

    images = sc.state("s.images")
    assert images["background"] == "loaded", images
    assert images["layers"] and all(s == "loaded" for s in images["layers"]), images

    frame = sc.frame()
    assert frame["type"] == "frame" and frame["rows"], "the first frame should show rows"
    # Draw again after images settled, then look at the pixels.
    sc.wait("s => s.framesDrawn >= 1")
    pixels = sc.pixels()
    distinct = {pixels[i:i + 3] for i in range(0, len(pixels), 4 * 97)}
    assert len(distinct) > 50, f"canvas looks blank ({len(distinct)} colours)"

    # The table header (180 pt below the top inset) shows the parallax layers, not a flat fill.
    insets = sc.insets()
    header = sc.region_stats(0, insets["top"] + 10, frame["viewport"]["width"], 150)
    assert header["colours"] > 20, header
    # Rows are semi-transparent: the background image shows through, so a row is not one flat colour.
    row = frame["rows"][-2]
    cells = sc.region_stats(frame["viewport"]["width"] * 0.55, row["y"] + 2, 60, row["h"] - 4)
    assert cells["colours"] > 3, cells

    artifacts.screenshot(page, "first-frame")


def test_canvas_is_hidpi_and_keeps_the_room_aspect(browser, page_server, room, artifacts):
    context = browser.new_context(device_scale_factor=2, viewport={"width": 1200, "height": 900})
    page = artifacts.watch(context.new_page())
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    canvas = sc.state("s.canvas")
    assert canvas["dpr"] == 2
    assert canvas["width"] == round(canvas["cssWidth"] * 2) and canvas["height"] == round(canvas["cssHeight"] * 2)
    viewport = sc.frame()["viewport"]
    assert abs(canvas["cssWidth"] / canvas["cssHeight"] - viewport["width"] / viewport["height"]) < 0.01
    page.wait_for_function("document.getElementById('replica-stats').textContent !== 'replica –'")
    assert_overlay_clear_of_the_table(page)
    artifacts.screenshot(page, "desktop-hidpi")
    context.close()


def test_phone_sized_window_fills_the_screen_with_the_table(browser, page_server, room, artifacts):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=3,
                                  has_touch=True, is_mobile=True)
    page = artifacts.watch(context.new_page())
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    box = page.locator("#view").bounding_box()
    # Most of the screen is the table; the controls fold into a bar.
    assert box["width"] >= 0.85 * 390 and box["height"] >= 0.8 * 844, box
    assert page.locator("#controls-details").get_attribute("open") is None
    # The stats line wraps to several lines here (five at this width): once its figures are
    # written, it sits below the table, not over its last rows.
    page.wait_for_function("document.getElementById('replica-stats').textContent !== 'replica –'")
    assert page.evaluate("document.getElementById('overlay').getBoundingClientRect().height") > 3 * 10
    assert_overlay_clear_of_the_table(page)
    artifacts.screenshot(page, "phone")
    context.close()


def assert_overlay_clear_of_the_table(page):
    """The stats line's box ends up below the canvas's (layout follows the line's wrapping)."""
    clear = """() => { const o = document.getElementById('overlay').getBoundingClientRect();
        const v = document.getElementById('view').getBoundingClientRect(); return o.top >= v.bottom; }"""
    try:
        page.wait_for_function(clear, timeout=5000)
    except Exception:
        boxes = page.evaluate("""() => [document.getElementById('overlay').getBoundingClientRect().toJSON(),
            document.getElementById('view').getBoundingClientRect().toJSON()]""")
        raise AssertionError(f"the stats line covers the table: overlay, canvas = {boxes}")


def test_a_busy_page_draws_only_the_newest_frame(page, page_server, room, artifacts):
    """Frames that arrive while the page is busy are not queued up: the next animation frame
    draws the newest one and skips the rest."""
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    sc.wait_idle()
    # The End key animates to the bottom; frames then stream (the scroll, then the indicator fading).
    # On a loaded machine the animation can end before the page has been busy long (a CI run at
    # load 9: 2 frames came): Home then animates back up for another try.
    page.locator("#view").focus()
    for key in ("End", "Home", "End"):
        page.keyboard.press(key)
        sc.wait("s => s.lastFrame.animating")
        result = _busy(page)
        if result["after"]["received"] - result["before"]["received"] >= 5:
            break
        sc.wait_idle()
    received = result["after"]["received"] - result["before"]["received"]
    drawn = result["after"]["drawn"] - result["before"]["drawn"]
    assert received >= 5, result
    assert drawn < received, result
    assert result["after"]["skipped"] > result["before"]["skipped"], result
    # The picture is of the newest frame the page has.
    sc.wait("s => s.lastFrame.seq === s.lastReceivedSeq")


def _busy(page) -> dict:
    """The page's frame counts before and after 400 ms of blocking its thread, once the messages
    queued meanwhile came in and the next animation frame drew."""
    return page.evaluate("""() => new Promise((resolve) => {
        const s = window.scrollcast.state;
        const before = { drawn: s.framesDrawn, received: s.framesReceived, skipped: s.framesSkipped };
        const until = performance.now() + 400;
        while (performance.now() < until) { /* busy: frames pile up in the socket */ }
        // Let the queued messages in, then wait for the drawing of the newest.
        setTimeout(() => requestAnimationFrame(() => setTimeout(() => resolve({
          before,
          after: { drawn: s.framesDrawn, received: s.framesReceived, skipped: s.framesSkipped },
          drawnSeq: s.lastFrame.seq, newestSeq: s.lastReceivedSeq }), 0)), 0);
    })""")
