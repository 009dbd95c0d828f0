"""Sharing a locked room across a cluster in real Chromium (docs/cluster.md, "Sharing across nodes"):
a real Redis, three real nodes, a page on each. The room runs on n0, whose page created it locked;
the key holder on n1 explores while n0 drives: its fling moves neither n0's nor n2's picture and no
node applies or refuses an input of it; following again eases it back to the room's present. The
watcher on n2 asks to drive, the key holder on n1 grants it, and its drag moves n0's picture. A
call back from n0 brings the explorers on n1 and n2 back."""

from __future__ import annotations

import pytest

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    artifacts, browser_type_launch_args, room,
)
from replica_session import wait_running
from server_helpers import metric
from test_page_explore import _assert_eased_back, _counts, _open, windows  # noqa: F401  (windows is a fixture)


def _inputs(cluster) -> tuple[float, float]:
    """Inputs applied and refused, over every node."""
    return (sum(metric(node, "scrollcast_inputs_total") for node in cluster.nodes),
            sum(metric(node, "scrollcast_refused_inputs_total") for node in cluster.nodes))


@pytest.mark.long(22)
def test_explore_follow_hand_over_and_call_back_across_nodes(windows, cluster, room, artifacts):
    owner = _open(windows, artifacts, cluster.nodes[0].base_url, room, "owner-n0", "&replica=off&lock=1")
    owner.wait("s => s.driveMode === 'key'")
    assert cluster.owner_index(room) == 0
    key = owner.page.locator("#codriver-link").get_attribute("href").split("#key=")[1]
    holder = _open(windows, artifacts, cluster.nodes[1].base_url, room, "holder-n1", f"&replica=on#key={key}")
    watcher = _open(windows, artifacts, cluster.nodes[2].base_url, room, "watcher-n2", "&replica=on")
    holder.wait("s => s.driveMode === 'key'")
    watcher.wait("s => s.driveMode === 'watch'")
    for sc in (holder, watcher):
        wait_running(sc)
        sc.wait("s => s.viewers === 3 && s.explore.available")
    assert holder.state("s.viewer").startswith("n1/") and watcher.state("s.viewer").startswith("n2/")
    owner.wait_idle()
    room_offset = owner.frame()["offset"]
    before = _inputs(cluster)

    # The key holder on n1 explores: counted on every node; its fling is its own table's only.
    holder.page.click("#view-toggle")
    holder.wait("s => s.explore.mode === 'explore'")
    for sc in (owner, holder, watcher):
        sc.wait("s => s.sharing.exploring === 1 && s.sharing.following === 2")
        assert _counts(sc) == "2 following · 1 exploring"
    holder.fling()   # made in the page: Playwright's press and moves can come a hold apart
    holder.wait("s => s.lastFrame.offset > 300")
    holder.wait_idle()
    explored = holder.frame()["offset"]
    assert explored > room_offset + 300
    assert _inputs(cluster) == before, "an explorer's input reached a node"
    assert owner.frame()["offset"] == room_offset and watcher.frame()["offset"] == room_offset

    # n0 drives meanwhile: the room moves on n0 and n2, not the explorer's picture.
    owner.drag(200, 600, 200, 350, steps=8)
    for sc in (owner, watcher):
        sc.wait("(s, b) => s.lastFrame.offset > b + 100", room_offset)
        sc.wait_idle()
    moved = owner.frame()["offset"]
    watcher.wait("(s, m) => s.lastFrame.offset === m", moved)
    assert holder.frame()["offset"] == explored
    artifacts.screenshot(holder.page, "exploring-n1")

    # Following again eases the explorer to the room's present.
    holder.page.click("#view-toggle")
    holder.wait("s => s.explore.mode === 'follow' && s.explore.ease.end !== null")
    _assert_eased_back(holder, moved)
    owner.wait("s => s.sharing.exploring === 0")

    # The watcher on n2 asks; the key holder on n1 sees the request and grants it.
    watcher_id = watcher.state("s.viewer")
    watcher.page.click("#ask-drive")
    watcher.wait("s => s.sharing.asking")
    item = holder.page.locator(f'#drive-requests li[data-viewer="{watcher_id}"]')
    item.wait_for(state="visible")
    owner.wait("(s, v) => s.sharing.requests.includes(v)", watcher_id)
    item.locator("button.grant").click()
    watcher.wait("s => s.driveMode === 'granted' && s.sharing.lastAnswer === 'granted'")
    owner.wait("(s, v) => s.sharing.requests.length === 0 && s.sharing.granted.includes(v)", watcher_id)

    # The watcher's drag moves the room: n0's page draws it, and the frames name its inputs.
    watcher.wait_idle()
    watcher.drag(200, 350, 200, 600, steps=8)
    watcher.wait("s => s.ownInputsApplied > 0")
    owner.wait("(s, b) => s.lastFrame.offset < b - 100", moved)
    assert watcher.state("s.refusedCount") == 0

    # Both followers explore; n0's key holder calls everyone back.
    for sc in (holder, watcher):
        sc.wait_idle()
        assert sc.page.evaluate("window.scrollcast.explore()") is True
    owner.wait("s => s.sharing.exploring === 2")
    call = owner.page.locator("#call-back")
    call.wait_for(state="visible")
    call.click()
    owner_id = owner.state("s.viewer")
    for sc in (holder, watcher):
        sc.wait("(s, v) => s.explore.mode === 'follow' && s.sharing.calledBackBy === v", owner_id)
    owner.wait("s => s.sharing.exploring === 0")
    call.wait_for(state="hidden")
