"""The page joins in its socket's URL (docs/protocol.md, "Joining in the upgrade"), in real Chromium
against the real server: the socket index.html opens early carries the page's join, connection.js
adopts it, and no join message is sent, on a first load and on a resume after a cut. A join that
holds a secret (the creator's key of a locked room, once it has it) goes as a message, and so does
every join after a server closed for want of one (a build older than joins in the URL)."""

from __future__ import annotations

import re

import pytest

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    TRACK_SOCKETS, ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)

SOCKETS = "({ sockets: window.__sockets.length, joins: window.__joins, messages: window.__joinMessages.length })"


@pytest.mark.parametrize("query", ["", "&protocol=v1&replica=off"])
def test_the_page_joins_in_the_url_and_resumes_in_it(browser, page_server, room, artifacts, query):
    context = browser.new_context()
    context.add_init_script(TRACK_SOCKETS)
    page = artifacts.watch(context.new_page())
    # ScrollcastPage.open adds replica=off unless asked: "replica=on" keeps the page's default.
    sc = ScrollcastPage(page, page_server.base_url, room).open(query or "&replica=on")
    first = page.evaluate(SOCKETS)
    assert first["sockets"] == 1, "connection.js adopted the socket index.html opened"
    assert first["messages"] == 0, "no join message: the join went with the upgrade"
    [join] = first["joins"]
    assert join["room"] == room and join["resumable"] is True and "resume" not in join
    assert join.get("inputs", False) is (query == ""), "the join asks for `applied` only with the replica"

    page.evaluate("window.__sockets.at(-1).close()")
    sc.wait("s => s.resumes === 1 && s.joined")
    again = page.evaluate(SOCKETS)
    assert again["sockets"] == 2 and again["messages"] == 0
    assert set(again["joins"][-1]["resume"]) == {"life", "seq", "moves"}
    sc.wait("s => s.framesDrawn >= 1")
    context.close()


def test_a_join_with_the_rooms_key_goes_as_a_message(browser, page_server, room, artifacts):
    context = browser.new_context()
    context.add_init_script(TRACK_SOCKETS)
    page = artifacts.watch(context.new_page())
    sc = ScrollcastPage(page, page_server.base_url, room).open("&lock=1")
    sc.wait("s => s.driveMode === 'key'")
    first = page.evaluate(SOCKETS)
    assert first["messages"] == 0 and first["joins"][0]["lock"] is True, "the creator's first join has no key yet"
    page.evaluate("window.__sockets.at(-1).close()")
    sc.wait("s => s.joined && s.snapshots + s.resumes >= 2")
    again = page.evaluate(SOCKETS)
    assert again["messages"] == 1 and len(again["joins"]) == 2, "the rejoin holds the key: a message"
    assert page.evaluate("new URL(window.__sockets.at(-1).url).search") == ""
    context.close()


def test_a_server_that_ignores_the_url_join_gets_a_join_message(browser, page_server, room, artifacts):
    # A server older than joins in the URL waits for a join message and closes at its deadline with
    # 1008 "no join within 10 s of connecting": played here at once by Playwright's routing for a
    # socket whose URL carries a join; any other goes through to the real server.
    context = browser.new_context()
    context.add_init_script(TRACK_SOCKETS)
    page = artifacts.watch(context.new_page())
    routed = []

    def route(ws):
        routed.append(ws.url)
        if "?join=" in ws.url:
            ws.close(code=1008, reason="no join within 10 s of connecting")
        else:
            ws.connect_to_server()

    page.route_web_socket(re.compile(r"/ws(\?|$)"), route)
    ScrollcastPage(page, page_server.base_url, room).open()
    # The early socket may close before connection.js adopts it; then connection.js tries its own.
    assert len(routed) >= 2 and all("?join=" in url for url in routed[:-1]) and "?" not in routed[-1], routed
    state = page.evaluate(SOCKETS)
    assert state["messages"] == 1 and state["joins"][-1]["room"] == room
    assert page.evaluate("window.scrollcast.state.joinRefused") is None
    context.close()
