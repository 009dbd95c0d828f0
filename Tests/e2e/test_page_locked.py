"""Who may drive, in the browser: "New locked room" makes a room only key holders drive; the plain
link watches (its input is refused, the page says why and stops streaming the gesture); the
co-driver link (?room=NAME#key=KEY) drives once the creator's gesture ends, and keeps its key
across a reconnect. The key is never written to an artifact: no print, no log, only images."""

from __future__ import annotations

import pytest

import re
from urllib.parse import urlsplit

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    TRACK_SOCKETS, ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)


def _ready(sc: ScrollcastPage) -> ScrollcastPage:
    sc.wait("s => s.joined && s.framesDrawn >= 1 && s.lastFrame !== null")
    sc.page.wait_for_function("window.scrollcast.state.images.ready")
    return sc


def _key_of(link: str) -> str:
    match = re.fullmatch(r"key=([0-9a-f]{64})", urlsplit(link).fragment)
    assert match, "the co-driver link carries a 64-hex-digit key in its fragment"
    return match.group(1)


def _address_bar_has_no_key(page) -> bool:
    return "key" not in urlsplit(page.url).fragment


def _assert_nowhere(secret: str, artifacts, server) -> None:
    """The secret is in no console line and no server log line (checked without ever printing it)."""
    in_console = any(secret in line for lines in artifacts.logs.values() for line in lines)
    in_server_log = any(secret in line for line in server.stderr_lines)
    assert not in_console, "a driver key reached the console"
    assert not in_server_log, "a driver key reached the server's log"


@pytest.mark.long(24)
def test_a_locked_room_drives_for_key_holders_and_only_watches_for_others(browser, page_server, room, artifacts):
    base = page_server.base_url

    # The creator: an ordinary room first, then "New locked room".
    ctx_c = browser.new_context()
    page_c = artifacts.watch(ctx_c.new_page(), "creator")
    ordinary = _ready(ScrollcastPage(page_c, base, room).open())
    ordinary.wait("s => s.driveMode === 'open'")
    assert "not locked" in page_c.locator("#drive-status").inner_text()
    page_c.click("#new-locked-room")
    page_c.wait_for_url(re.compile(r"\?room=locked-[0-9a-f]{8}"))
    locked_room = page_c.evaluate("window.scrollcast.state.room")
    creator = _ready(ScrollcastPage(page_c, base, locked_room))
    creator.wait("s => s.driveMode === 'key'")
    assert creator.state("s.askedLock") is True
    assert "lock=" not in page_c.url
    assert _address_bar_has_no_key(page_c), "the creator's address bar shows no key"
    assert "You can drive" in page_c.locator("#drive-status").inner_text()
    assert page_c.locator("#drive-badge").is_visible()
    assert "you can drive" in page_c.locator("#drive-badge").inner_text()

    watch_link = page_c.locator("#share-link").get_attribute("href")
    codriver_link = page_c.locator("#codriver-link").get_attribute("href")
    assert page_c.locator("#codriver-link").is_visible()
    assert page_c.locator("#share-link").inner_text() == "watch-only link"
    assert urlsplit(watch_link).query == f"room={locked_room}" and urlsplit(watch_link).fragment == ""
    assert urlsplit(codriver_link).query == f"room={locked_room}"
    key = _key_of(codriver_link)
    shown = key in page_c.locator("body").inner_text()
    assert not shown, "the key is a link, never shown as text"
    # A locked room's recording needs its key (docs/recording.md): the creator's download link has it.
    recording_link = page_c.locator("#recording-link").get_attribute("href")
    assert urlsplit(recording_link).query == f"room={locked_room}&key={key}", recording_link

    # The creator drags and the frames move.
    creator.wait_idle()
    start = creator.frame()["offset"]
    creator.drag(200, 700, 200, 400)
    creator.wait("(s, b) => s.lastFrame.offset > b + 100 && s.ownInputsApplied > 0", start)
    assert creator.state("s.refusedCount") == 0
    creator.wait_idle()
    artifacts.screenshot(page_c, "creator-can-drive")

    # A watcher with the plain link: its drag is refused, the page says why, its frames stay put.
    ctx_w = browser.new_context()
    page_w = artifacts.watch(ctx_w.new_page(), "watcher")
    page_w.goto(watch_link + "&replica=off")   # server frames: the picture's seq must not move
    watcher = _ready(ScrollcastPage(page_w, base, locked_room))
    # The snapshot says the room is locked: the page says "watch only" before any input is refused.
    watcher.wait("s => s.driveMode === 'watch'")
    assert "Watch only" in page_w.locator("#drive-status").inner_text()
    assert not page_w.locator("#codriver-share").is_visible()
    assert urlsplit(page_w.locator("#recording-link").get_attribute("href")).query == f"room={locked_room}"
    watcher.wait_idle()
    before = watcher.frame()
    watcher.drag(200, 700, 200, 400, release=False)
    watcher.wait("s => s.refusedCount >= 1 && s.driveMode === 'watch'")
    assert watcher.state("s.lastRefused.code") == "locked"
    assert "locked" in watcher.state("s.lastRefused.reason")
    toast = page_w.locator("#toast")
    assert toast.is_visible() and "locked" in toast.inner_text() and "driver key" in toast.inner_text()
    assert "Watch only" in page_w.locator("#drive-status").inner_text()
    assert "watch only" in page_w.locator("#drive-badge").inner_text()
    # The refused gesture streams nothing more, not even its pointerUp.
    moves = watcher.state("s.inputsByKind.pointerMove || 0")
    watcher.move_to(200, 200, steps=10)
    watcher.release()
    assert watcher.state("s.inputsByKind.pointerMove || 0") == moves
    assert watcher.state("s.inputsByKind.pointerUp || 0") == 0
    after = watcher.frame()
    assert (after["seq"], after["offset"]) == (before["seq"], before["offset"])
    artifacts.screenshot(page_w, "watcher-refused")

    # The creator's next input reaches the watcher, and no frame ever applied the watcher's.
    creator_viewer = creator.state("s.viewer")
    page_c.mouse.move(*creator.client_point(200, 400))
    page_c.mouse.wheel(0, 120)
    watcher.wait("(s, v) => s.lastFrame.input && s.lastFrame.input.viewer === v", creator_viewer)
    assert watcher.state("s.ownInputsApplied") == 0
    creator.wait_idle()
    watcher.wait_idle()

    # A co-driver with the co-driver link; its key leaves the address bar but stays with the page.
    ctx_d = browser.new_context()
    ctx_d.add_init_script(TRACK_SOCKETS)
    page_d = artifacts.watch(ctx_d.new_page(), "codriver")
    page_d.goto(codriver_link)
    codriver = _ready(ScrollcastPage(page_d, base, locked_room))
    codriver.wait("s => s.driveMode === 'key'")
    assert _address_bar_has_no_key(page_d), "the co-driver link's key left the address bar"
    same_link = page_d.locator("#codriver-link").get_attribute("href") == codriver_link
    assert same_link, "the co-driver is offered the same co-driver link"

    # While the creator holds the room, the co-driver is refused for now (not locked out).
    creator.drag(200, 700, 200, 600, steps=5, release=False)
    codriver.wait("(s, v) => s.driver === v", creator_viewer)
    page_d.mouse.move(*codriver.client_point(200, 300))
    page_d.mouse.wheel(0, 120)
    codriver.wait("s => s.refusedCount >= 1")
    assert "driving" in codriver.state("s.lastRefused.reason")
    assert codriver.state("s.driveMode") == "key"
    creator.release()
    codriver.wait("s => s.driver === null")
    creator.wait_idle()

    # The creator's gesture over, the co-driver drives, and the watcher sees it.
    at = codriver.frame()["offset"]
    codriver.drag(200, 700, 200, 450)
    codriver.wait("(s, b) => s.ownInputsApplied > 0 && Math.abs(s.lastFrame.offset - b) > 100", at)
    codriver_viewer = codriver.state("s.viewer")
    watcher.wait("(s, v) => s.lastFrame.input && s.lastFrame.input.viewer === v", codriver_viewer)
    codriver.wait_idle()
    watcher.wait_idle()
    assert watcher.frame()["offset"] == codriver.frame()["offset"]
    artifacts.screenshot(page_d, "codriver-drives")
    artifacts.screenshot(page_w, "watcher-sees-codriver")

    # A dropped connection rejoins with the key (the address bar no longer has it) and still drives.
    page_d.evaluate("window.__sockets.at(-1).close()")
    codriver.wait("s => s.joined && s.snapshots + s.resumes >= 2")
    joins = page_d.evaluate("window.__joins.length")
    assert joins >= 2
    every_join_had_key = page_d.evaluate("(k) => window.__joins.every(j => j.driverKey === k && j.lock === true)", key)
    assert every_join_had_key, "the rejoin sent the key (and lock) again"
    # A join with a key goes as a message, never in a socket's URL (docs/protocol.md, "Joining in the upgrade").
    assert page_d.evaluate("window.__joinMessages.length") == joins
    codriver.wait("s => s.driveMode === 'key'")
    applied = codriver.state("s.ownInputsApplied")
    page_d.mouse.move(*codriver.client_point(200, 400))
    page_d.mouse.wheel(0, 120)
    codriver.wait("(s, n) => s.ownInputsApplied > n", applied)
    assert codriver.state("s.refusedCount") == 1, "only the refusal while the creator held the room"

    # The key appears in no console line and no server log line.
    _assert_nowhere(key, artifacts, page_server)
    for ctx in (ctx_c, ctx_w, ctx_d):
        ctx.close()


def test_the_creator_keeps_driving_after_a_reload_and_a_wrong_key_only_watches(browser, page_server, room, artifacts):
    base = page_server.base_url
    ctx_c = browser.new_context()
    page_c = artifacts.watch(ctx_c.new_page(), "creator")
    page_c.goto(f"{base}/?room={room}&lock=1")
    creator = _ready(ScrollcastPage(page_c, base, room))
    creator.wait("s => s.driveMode === 'key'")
    codriver_link = page_c.locator("#codriver-link").get_attribute("href")
    key = _key_of(codriver_link)

    # A reload: the address bar has neither lock nor key, the tab still has the key.
    page_c.reload()
    creator = _ready(ScrollcastPage(page_c, base, room))
    creator.wait("s => s.driveMode === 'key' && s.sentDriverKey")
    same_link = page_c.locator("#codriver-link").get_attribute("href") == codriver_link
    assert same_link, "the reloaded creator still offers its co-driver link"
    start = creator.frame()["offset"]
    page_c.mouse.move(*creator.client_point(200, 400))
    page_c.mouse.wheel(0, 200)
    creator.wait("(s, b) => s.ownInputsApplied > 0 && s.lastFrame.offset > b", start)

    # A link whose key has one digit changed: not accepted, and the first input confirms the lock.
    wrong = key[:-1] + ("0" if key[-1] != "0" else "1")
    ctx_g = browser.new_context()
    page_g = artifacts.watch(ctx_g.new_page(), "guesser")
    page_g.goto(f"{base}/?room={room}#key={wrong}")
    guesser = _ready(ScrollcastPage(page_g, base, room))
    guesser.wait("s => s.driveMode === 'rejected'")
    assert "not accepted" in page_g.locator("#drive-status").inner_text()
    assert not page_g.locator("#codriver-share").is_visible()
    assert _address_bar_has_no_key(page_g), "the wrong key left the address bar"
    creator.wait_idle()
    page_g.mouse.move(*guesser.client_point(200, 400))
    page_g.mouse.wheel(0, 200)
    guesser.wait("s => s.driveMode === 'watch'")
    assert "locked" in page_g.locator("#toast").inner_text()
    assert guesser.state("s.ownInputsApplied") == 0
    artifacts.screenshot(page_g, "wrong-key-watches")

    _assert_nowhere(key, artifacts, page_server)
    _assert_nowhere(wrong, artifacts, page_server)
    for ctx in (ctx_c, ctx_g):
        ctx.close()
