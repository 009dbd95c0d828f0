"""Two Chromium pages of one room, each connected to a different node of a cluster (a real
Redis and three real nodes, docs/cluster.md), draw the same picture: a fling driven on the page
of a node that does not run the room, then a held drag, match pixel for pixel."""

import pytest

from cluster_helpers import Cluster
from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, changed_fraction, room,
)
from redis_helpers import redis_server  # noqa: F401  (fixture)
from test_page_wire_v2 import same_frame_on_both


@pytest.fixture
def cluster(server_factory, redis_server):  # noqa: F811
    return Cluster(server_factory, redis_server)


def test_pages_on_two_nodes_draw_the_same_picture(browser, cluster, room, artifacts):
    ctx_a, ctx_b = browser.new_context(), browser.new_context()
    # A creates the room, so its node (n0) runs it; B is on n1 and drives.
    a = ScrollcastPage(artifacts.watch(ctx_a.new_page(), "node0"), cluster.nodes[0].base_url, room).open()
    a.wait("s => s.viewers === 1")
    b = ScrollcastPage(artifacts.watch(ctx_b.new_page(), "node1"), cluster.nodes[1].base_url, room).open()
    assert cluster.owner_index(room) == 0
    a.wait("s => s.viewers === 2")
    b.wait("s => s.viewers === 2")
    assert b.state("s.viewer").startswith("n1/")
    a.wait_idle()
    b.wait_idle()

    b.drag(200, 720, 200, 140, steps=6)
    a.wait("s => s.lastFrame.offset > 300")
    a.wait_idle()
    b.wait_idle()
    same_frame_on_both(a, b, "s => s.lastFrame.animating === false")
    assert a.frame() == b.frame()
    artifacts.screenshot(a.page, "node0-after-fling")
    artifacts.screenshot(b.page, "node1-after-fling")
    assert changed_fraction(a.pixels(), b.pixels()) == 0

    b.drag(200, 600, 200, 380, steps=10, release=False)
    held = "s => s.lastFrame.animating === false && (s.lastFrame.phase === 'tracking' || s.lastFrame.lifted !== null)"
    same_frame_on_both(a, b, held)
    assert a.frame() == b.frame()
    artifacts.screenshot(a.page, "node0-held")
    artifacts.screenshot(b.page, "node1-held")
    assert changed_fraction(a.pixels(), b.pixels()) == 0
    b.page.mouse.up()
    a.wait_idle()
    b.wait_idle()
    ctx_a.close()
    ctx_b.close()
