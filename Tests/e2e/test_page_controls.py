"""Controls and accessibility: keyboard-only use with a visible focus ring, the share link,
the recording download, presence, and reduced motion (system setting and toggle)."""

import json

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)
from server_helpers import RunningServer


def test_keyboard_only_reaches_the_table_with_a_visible_focus_ring(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    sc.wait_idle()
    for _ in range(5):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "view":
            break
    assert page.evaluate("document.activeElement.id") == "view", "Tab reaches the canvas"
    assert page.evaluate("document.getElementById('view').matches(':focus-visible')")
    ring = page.evaluate("getComputedStyle(document.getElementById('phone'), '::after').boxShadow")
    assert ring and ring != "none", "a focus ring is drawn over the canvas"
    artifacts.screenshot(page, "keyboard-focus")

    start = sc.frame()["offset"]
    page.keyboard.press("ArrowDown")
    sc.wait("(s, b) => s.lastFrame.offset > b + 5 && !s.lastFrame.animating", start)
    assert sc.state("s.inputsByKind.key") == 1


def test_copy_share_link_puts_the_room_url_on_the_clipboard(browser, page_server, room, artifacts):
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=page_server.base_url)
    page = artifacts.watch(context.new_page())
    ScrollcastPage(page, page_server.base_url, room).open()
    assert page.locator("#room-name").inner_text() == room
    page.click("#copy-link")
    page.wait_for_function("document.getElementById('copy-status').textContent === 'Copied.'")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == f"{page_server.base_url}/?room={room}"
    assert page.locator("#share-link").get_attribute("href") == copied
    context.close()


def test_presence_counts_viewers_and_names_the_driver(browser, page_server, room, artifacts):
    ctx_a, ctx_b = browser.new_context(), browser.new_context()
    a = ScrollcastPage(artifacts.watch(ctx_a.new_page(), "a"), page_server.base_url, room).open()
    b = ScrollcastPage(artifacts.watch(ctx_b.new_page(), "b"), page_server.base_url, room).open()
    a.wait("s => s.viewers === 2")
    a.page.wait_for_function("document.getElementById('presence').textContent.startsWith('2 viewers')")

    a.drag(200, 600, 200, 450, steps=6, release=False)
    a.wait("(s) => s.driver !== null && s.driver === s.viewer")
    viewer_a = a.state("s.viewer")
    b.wait("(s, v) => s.driver === v", viewer_a)
    assert "you are driving" in a.page.locator("#presence").inner_text()
    assert f"{viewer_a} is driving" in b.page.locator("#presence").inner_text()
    a.release()
    b.wait("s => s.driver === null")

    ctx_b.close()
    a.wait("s => s.viewers === 1")
    ctx_a.close()


def test_system_reduced_motion_is_sent_and_the_toggle_switches_it(browser, page_server, room, artifacts):
    context = browser.new_context(reduced_motion="reduce")
    page = artifacts.watch(context.new_page())
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    assert page.is_checked("#reduced-motion")
    sc.wait("s => s.reducedMotion === true && s.inputsByKind.reducedMotion === 1")
    sc.wait_idle()

    # With reduced motion the header layers move rigidly with the content (no parallax).
    top = sc.insets()["top"]
    resting = sc.frame()["layers"][1]["y"]
    sc.drag(200, 200, 200, 450, steps=15, release=False)
    sc.wait("(s, top) => s.lastFrame.offset + top < -40 && s.lastFrame.phase === 'tracking'", top)
    frame = sc.frame()
    overscroll = frame["offset"] + top
    layer = next(l for l in frame["layers"] if l["i"] == 1)
    assert abs((layer["y"] - resting) + overscroll) < 0.51, (layer["y"], resting, overscroll)
    sc.release()
    sc.wait("(s, top) => Math.abs(s.lastFrame.offset + top) < 0.5 && !s.lastFrame.animating", top)

    page.uncheck("#reduced-motion")
    sc.wait("s => s.reducedMotion === false && s.inputsByKind.reducedMotion === 2")
    context.close()


def test_download_recording_saves_the_rooms_recording(page, room, artifacts, tmp_path):
    server = RunningServer(data=tmp_path / "rooms.sqlite")
    try:
        artifacts.watch(page)
        sc = ScrollcastPage(page, server.base_url, room).open()
        sc.wait_idle()
        link = page.locator("#recording-link")
        assert link.inner_text() == "Download recording"
        assert link.get_attribute("href") == f"{server.base_url}/recording?room={room}"
        sc.drag(200, 600, 200, 300, steps=10)
        sc.wait_idle()
        with page.expect_download() as download:
            link.click()
        assert download.value.suggested_filename == f"{room}-life-1.scrollcast.jsonl"
        lines = open(download.value.path(), encoding="utf-8").read().splitlines()
        header = json.loads(lines[0])
        assert header["type"] == "recording" and header["room"] == room and header["scene"] == "demo"
        assert any('"kind":"pointerDown"' in line for line in lines[1:])
        last = json.loads(lines[-1])
        assert last["type"] == "frame" and last["seq"] == sc.frame()["seq"], "every frame the page was sent so far"
    finally:
        server.stop()


def test_download_recording_without_a_data_file_says_why(page, page_server, room, artifacts):
    artifacts.watch(page)
    ScrollcastPage(page, page_server.base_url, room).open()
    response = page.request.get(page.locator("#recording-link").get_attribute("href"))
    assert response.status == 404
    assert "--data none" in response.text()
