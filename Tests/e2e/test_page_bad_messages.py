"""docs/protocol.md, "Bad messages": the page skips a frame it cannot read, but after any other
unreadable message (it may have carried row order or texts) it reconnects and starts again from a
fresh snapshot. The bad bytes are slipped in between the real server and real Chromium by
Playwright's WebSocket routing; everything else is the real server's traffic."""

from __future__ import annotations

import re

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)


def test_the_page_skips_an_unreadable_frame_but_reconnects_after_an_unreadable_row_move(page, page_server, room, artifacts):
    artifacts.watch(page)
    routes = []

    def route(ws):
        ws.connect_to_server()   # forwards both ways, as if there were no route
        routes.append(ws)

    page.route_web_socket(re.compile(r"/ws(\?|$)"), route)   # the join goes in the query
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    assert sc.state("s.protocol") == "scrollcast.v2"
    assert len(routes) == 1
    drawn = sc.state("s.framesDrawn")

    routes[0].send(bytes([2, 0xff]))           # a frame cut short: skipped
    page.locator("#view").focus()
    page.keyboard.press("End")                 # real frames keep coming on the same socket
    # Drawn up to the End's rest, not a count of frames: on a loaded machine most of the scroll's
    # frames are superseded before a display frame comes (one run drew 3 of 23).
    sc.wait_settled()
    assert sc.state("s.framesDrawn") > drawn and sc.frame()["offset"] > 0
    assert len(routes) == 1, "no reconnect for a bad frame"

    assert sc.state("s.snapshots") == 1

    routes[0].send(bytes([4, 0x22, 0x00]))     # a rowMoved cut short: its move would be lost
    sc.wait("s => s.snapshots === 2 && s.joined && s.lastFrame !== null")
    assert len(routes) == 2, "the page reconnected and joined again on a new socket"
