"""The page's `?nodes=` list (Public/js/nodes.js): which node it starts with, and that a viewer
whose node dies reconnects to the next node in the list and draws again.

The servers here are plain single nodes started with `--allowed-origins '*'`, since a page served
by one node opens WebSockets to the others with its own origin."""

import socket

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)
from server_helpers import metric, run, until_metric

ANY_ORIGIN = ("--allowed-origins", "*")

# Records the URL of every WebSocket the page opens, in order, with its time: the real WebSocket
# does the work, this only watches which node each attempt went to.
RECORD_SOCKETS = """
(() => {
  const Real = window.WebSocket;
  window.socketAttempts = [];
  window.WebSocket = class extends Real {
    constructor(url, protocols) {
      window.socketAttempts.push({ url: String(url), at: performance.now() });
      super(url, protocols);
    }
  };
})();
"""


def node_of(server) -> str:
    return f"127.0.0.1:{server.port}"


def attempted_urls(page) -> list[str]:
    """The sockets' URLs without their query (the join, docs/protocol.md "Joining in the upgrade")."""
    return [a["url"].split("?")[0] for a in page.evaluate("window.socketAttempts")]


def assert_draws(sc: ScrollcastPage):
    """The canvas shows the table, not a blank or waiting screen (as test_page_render checks)."""
    pixels = sc.pixels()
    distinct = {pixels[i:i + 3] for i in range(0, len(pixels), 4 * 97)}
    assert len(distinct) > 50, f"canvas looks blank ({len(distinct)} colours)"


def test_a_viewer_of_a_killed_node_moves_to_the_next_node_and_draws(page, server_factory, room, artifacts):
    a = server_factory(*ANY_ORIGIN)
    b = server_factory(*ANY_ORIGIN)
    artifacts.watch(page)
    page.add_init_script(RECORD_SOCKETS)
    sc = ScrollcastPage(page, a.base_url, room).open(f"&nodes={node_of(a)},{node_of(b)}")

    assert page.evaluate("window.scrollcast.node") == node_of(a)
    assert sc.state("s.snapshots") == 1
    assert sc.state("s.nodes") == [node_of(a), node_of(b)]
    assert metric(a, "scrollcast_viewers") == 1 and metric(b, "scrollcast_viewers") == 0
    drawn = sc.state("s.framesDrawn")

    a.proc.kill()
    a.proc.wait(timeout=10)

    sc.wait("(s, b) => window.scrollcast.node === b && s.joined && s.snapshots >= 2", node_of(b), timeout=30000)
    # Its first attempt after the loss went to B and worked: no second try at the dead node.
    assert attempted_urls(page) == [f"ws://{node_of(a)}/ws", f"ws://{node_of(b)}/ws"]
    assert run(until_metric(b, "scrollcast_viewers", lambda v: v == 1)) == 1
    sc.wait("(s, n) => s.framesDrawn > n && s.images.ready", drawn)
    assert not page.locator("#banner").is_visible()
    assert_draws(sc)

    # And it is live on B: input scrolls.
    start = sc.frame()["offset"]
    page.mouse.move(*sc.client_point(200, 400))
    page.mouse.wheel(0, 300)
    sc.wait("(s, b) => s.lastFrame.offset > b + 50", start)
    artifacts.screenshot(page, "reconnected-to-node-b")


def test_a_node_that_refuses_the_connection_is_skipped_quickly(page, page_server, server_factory, room, artifacts):
    # A loopback port nothing listens on: bound, then closed.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = f"127.0.0.1:{probe.getsockname()[1]}"
    b = server_factory(*ANY_ORIGIN)
    artifacts.watch(page)
    page.add_init_script(RECORD_SOCKETS)
    # The page's own node is not in the list, so it starts with the first entry: the dead one.
    sc = ScrollcastPage(page, page_server.base_url, room).open(f"&nodes={dead},{node_of(b)}")

    assert page.evaluate("window.scrollcast.node") == node_of(b)
    attempts = page.evaluate("window.socketAttempts")
    assert [a["url"].split("?")[0] for a in attempts] == [f"ws://{dead}/ws", f"ws://{node_of(b)}/ws"]
    # The page waits at most 250 ms before trying another node; 2 s leaves room for a busy machine
    # while still failing if a switch of node waited out a grown backoff (up to 5 s).
    assert attempts[1]["at"] - attempts[0]["at"] < 2000, attempts
    assert_draws(sc)


def test_the_nodes_list_is_parsed_and_the_start_chosen(page, page_server, room):
    ScrollcastPage(page, page_server.base_url, room).open()
    result = page.evaluate("""async () => {
        const { parseNodes, nodesFromLocation } = await import('./js/nodes.js');
        const from = (href) => nodesFromLocation(new URL(href));
        return {
          valid: parseNodes('127.0.0.1:8080,127.0.0.1:8081,node-3.example.com:443'),
          junk: parseNodes(' 127.0.0.1:8080 ,,junk,host:0,host:65536,a b:1,-bad:1,:80,h:80/ws,[::1]:9000,Host.Example:80,127.0.0.1:8080'),
          empty: parseNodes(''),
          ownListed: from('http://127.0.0.1:8081/?nodes=127.0.0.1:8080,127.0.0.1:8081'),
          ownAbsent: from('http://127.0.0.1:9999/?nodes=127.0.0.1:8080,127.0.0.1:8081'),
          ownDefaultPort: from('https://example.com/?nodes=a.example.com:443,example.com:443'),
          noList: from('http://127.0.0.1:8080/?room=x'),
          onlyJunk: from('http://127.0.0.1:8080/?nodes=,nonsense,'),
        };
      }""")
    assert result["valid"] == ["127.0.0.1:8080", "127.0.0.1:8081", "node-3.example.com:443"]
    # Entries are trimmed and lower-cased, junk is dropped and a repeat is kept once.
    assert result["junk"] == ["127.0.0.1:8080", "[::1]:9000", "host.example:80"]
    assert result["empty"] == []
    assert result["ownListed"] == {"nodes": ["127.0.0.1:8080", "127.0.0.1:8081"], "start": 1}
    assert result["ownAbsent"] == {"nodes": ["127.0.0.1:8080", "127.0.0.1:8081"], "start": 0}
    assert result["ownDefaultPort"] == {"nodes": ["a.example.com:443", "example.com:443"], "start": 1}
    assert result["noList"] == {"nodes": ["127.0.0.1:8080"], "start": 0}
    assert result["onlyJunk"] == {"nodes": ["127.0.0.1:8080"], "start": 0}
