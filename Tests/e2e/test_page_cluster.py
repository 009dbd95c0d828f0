"""Two Chromium pages of one room, each connected to a different node of a cluster (a real
Redis and three real nodes, docs/cluster.md), draw the same picture: a fling driven on the page
of a node that does not run the room, then a held drag, match pixel for pixel."""


from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, assert_same_pictures_through_a_fling_and_a_hold, browser_type_launch_args, room,
)



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

    # Both the fling and the held drag come from node 1's page, whose inputs go to node 0.
    assert_same_pictures_through_a_fling_and_a_hold(a, b, artifacts, ("node0", "node1"), flinger=b, holder=b)
    ctx_a.close()
    ctx_b.close()
