"""Raw input from the page scrolls the shared table: mouse, touch (CDP), wheel and keys.
Effects checked against the seeds: background-scroll-indicator.txt, parallax-header.txt and
info-panel-and-row-moving.txt (the info panel)."""

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, changed_fraction, page_server, room,
)


def _scroll_markers(frame: dict) -> dict:
    return {
        "offset": frame["offset"],
        "background": frame["background"]["offset"],
        "indicator": frame["indicator"]["y"],
        "first_row": (frame["rows"][0]["s"], frame["rows"][0]["r"]),
    }


def _assert_scrolled_down(before: dict, after: dict):
    assert after["offset"] > before["offset"] + 100, (before, after)
    assert after["background"] > before["background"], "background-scroll-indicator.txt: the background follows"
    assert after["indicator"] > before["indicator"], "the scroll indicator moves down the track"
    assert after["first_row"] != before["first_row"], "other rows are on screen"


def test_mouse_drag_scrolls_rows_background_and_indicator(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    sc.wait_idle()
    before = _scroll_markers(sc.frame())
    pixels_before = sc.pixels()

    sc.drag(200, 700, 200, 250, steps=20)
    sc.wait("(s, b) => s.lastFrame.offset > b + 100", before["offset"])
    sc.wait_idle()
    after = _scroll_markers(sc.frame())
    _assert_scrolled_down(before, after)
    assert changed_fraction(pixels_before, sc.pixels()) > 0.3
    artifacts.screenshot(page, "after-mouse-drag")


def test_touch_drag_scrolls_like_a_finger(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    sc.wait_idle()
    before = _scroll_markers(sc.frame())
    pixels_before = sc.pixels()

    cdp = page.context.new_cdp_session(page)
    x, y0 = sc.client_point(200, 700)
    _, y1 = sc.client_point(200, 250)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y0}]})
    for i in range(1, 21):
        y = y0 + (y1 - y0) * i / 20
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    sc.wait("(s, b) => s.lastFrame.offset > b + 100", before["offset"])
    sc.wait_idle()
    after = _scroll_markers(sc.frame())
    _assert_scrolled_down(before, after)
    assert changed_fraction(pixels_before, sc.pixels()) > 0.3
    assert sc.frame()["panel"] is None, "the info panel is gone once scrolling ends"
    artifacts.screenshot(page, "after-touch-drag")


def test_info_panel_shows_beside_the_indicator_while_dragging_then_goes(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    sc.wait_idle()

    # Drag and keep the button down: the panel belongs to the drag (info-panel-and-row-moving.txt).
    sc.drag(200, 700, 200, 400, steps=15, release=False)
    sc.wait("s => s.lastFrame.panel && s.lastFrame.panel.alpha > 0.9 && s.lastFrame.indicator.alpha > 0.5")
    frame = sc.frame()
    panel, indicator = frame["panel"], frame["indicator"]
    assert panel["title"], "the panel names where you are"
    assert panel["x"] + panel["w"] <= indicator["x"], "the panel sits left of the indicator"
    panel_mid = panel["y"] + panel["h"] / 2
    indicator_mid = indicator["y"] + indicator["h"] / 2
    assert abs(panel_mid - indicator_mid) <= panel["h"], "the panel is attached to the indicator"
    during = sc.region_stats(panel["x"] + 4, panel["y"] + 4, panel["w"] - 8, panel["h"] - 8)
    artifacts.screenshot(page, "panel-during-drag")

    sc.release()
    sc.wait("s => !s.lastFrame.panel || s.lastFrame.panel.alpha === 0")
    sc.wait_idle()
    after = sc.region_stats(panel["x"] + 4, panel["y"] + 4, panel["w"] - 8, panel["h"] - 8)
    # The panel is a dark translucent box over light rows: its area gets much lighter once it is gone.
    assert after["luminance"] > during["luminance"] + 40, (during, after)
    assert sc.frame()["indicator"]["alpha"] == 0, "the indicator fades out when scrolling ends"
    artifacts.screenshot(page, "panel-gone")


def test_pulling_down_moves_the_seed_layer_by_a_third(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    sc.wait_idle()
    top = sc.insets()["top"]
    rest = sc.frame()
    assert rest["offset"] == -top
    resting = rest["layers"][1]["y"]
    header_before = sc.region_stats(0, 0, rest["viewport"]["width"], 300)

    sc.drag(200, 200, 200, 500, steps=20, release=False)
    sc.wait("(s, top) => s.lastFrame.offset + top < -40 && s.lastFrame.phase === 'tracking'", top)
    frame = sc.frame()
    overscroll = frame["offset"] + top
    layer = next(l for l in frame["layers"] if l["i"] == 1)
    # parallax-header.txt: origin.y = _headerImageYOffset - (scrollOffset / 3)
    assert abs((layer["y"] - resting) - (-overscroll / 3)) < 0.51, (layer["y"], resting, overscroll)
    header_pulled = sc.region_stats(0, 0, rest["viewport"]["width"], 300)
    assert abs(header_pulled["luminance"] - header_before["luminance"]) > 1, "the header picture changed"
    artifacts.screenshot(page, "pulled-down")

    sc.release()
    sc.wait("(s, top) => Math.abs(s.lastFrame.offset + top) < 0.5 && !s.lastFrame.animating", top)
    layer = next(l for l in sc.frame()["layers"] if l["i"] == 1)
    assert abs(layer["y"] - resting) < 0.5, "the layer springs back with the content"


def test_wheel_burst_and_keys_scroll(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    sc.wait_idle()
    start = sc.frame()["offset"]

    page.mouse.move(*sc.client_point(200, 400))
    for _ in range(10):
        page.mouse.wheel(0, 120)
    sc.wait("(s, b) => s.lastFrame.offset > b + 200", start)
    sc.wait_idle()
    after_wheel = sc.frame()["offset"]
    assert sc.state("s.inputsSent") >= 2

    page.locator("#view").focus()
    page.keyboard.press("PageDown")
    sc.wait("(s, b) => s.lastFrame.offset > b + 300 && !s.lastFrame.animating", after_wheel)
    after_page = sc.frame()["offset"]

    page.keyboard.press("ArrowUp")
    sc.wait("(s, b) => s.lastFrame.offset < b - 5 && !s.lastFrame.animating", after_page)

    page.keyboard.press("End")
    sc.wait("s => !s.lastFrame.animating && s.lastFrame.offset > s.lastFrame.contentHeight - s.lastFrame.viewport.height - 1")
    last = sc.frame()
    assert last["rows"][-1]["y"] + last["rows"][-1]["h"] <= last["viewport"]["height"] + 0.5
    artifacts.screenshot(page, "after-end-key")

    page.keyboard.press("Home")
    top = sc.insets()["top"]
    sc.wait("(s, top) => !s.lastFrame.animating && Math.abs(s.lastFrame.offset + top) < 0.5", top)

    page.keyboard.press("Space")
    sc.wait("(s, top) => s.lastFrame.offset > -top + 300 && !s.lastFrame.animating", top)
    page.keyboard.press("Shift+Space")
    sc.wait("(s, top) => Math.abs(s.lastFrame.offset + top) < 0.5 && !s.lastFrame.animating", top)

    # The overlay measured our own inputs' round trips.
    sc.wait("s => s.latency.samples > 0")
    assert "ms" in page.locator("#latency").inner_text()
