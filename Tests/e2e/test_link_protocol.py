"""The real scrollcast server behind the real link emulator (`scrollcast-link`, docs/links.md):
the page and the protocol work through an emulated 4G link, and a cut is seen at both ends."""

from __future__ import annotations

import asyncio
import time
import urllib.request

from server_helpers import ClientClock, Viewer, drag, run


def test_a_viewer_through_4g_gets_its_snapshot_and_frames_at_least_two_delays_late(scrollcast_server, link_proxy, room_name):
    proxy = link_proxy(scrollcast_server.port, "4g", seed=3)

    async def scenario():
        viewer = await Viewer.open(proxy.ws_url(), "v2")
        joined = time.monotonic()
        await viewer.send({"type": "join", "room": room_name})
        await viewer.wait_type("snapshot")
        # The join goes up (≥ 40 ms) and the snapshot comes down (≥ 40 ms).
        assert time.monotonic() - joined >= 0.080
        last = await drag(viewer, ClientClock(), x=200, y0=700, y1=300)
        await viewer.wait_type("frame", where=lambda f: (f.get("input") or {}).get("id") == last, timeout=15)
        seqs = [obj["seq"] for _, obj in viewer.frames()]
        assert len(seqs) >= 3 and seqs == sorted(seqs), seqs
        await viewer.close()

    run(scenario())
    stats = proxy.stats()
    assert stats["profile"] == "4g" and stats["connections"]["accepted"] == 1
    assert stats["chunks"]["up"] >= 14 and stats["chunks"]["down"] >= 4


def test_the_page_loads_through_the_link(scrollcast_server, link_proxy):
    proxy = link_proxy(scrollcast_server.port, "broadband")
    with urllib.request.urlopen(proxy.http_url("/"), timeout=10) as response:
        assert response.status == 200 and b"<canvas" in response.read()


def test_cut_drops_every_viewer_and_new_connections_still_work(scrollcast_server, link_proxy, room_name):
    proxy = link_proxy(scrollcast_server.port, "lan")

    async def scenario():
        viewers = [await Viewer.join(proxy.ws_url(), room_name) for _ in range(3)]
        for viewer in viewers:
            await viewer.wait_type("snapshot")
        assert proxy.cut() == 3
        for viewer in viewers:
            code, _ = await viewer.wait_closed(timeout=5)
            assert code == 1006, "a cut link is an abnormal closure, not a close handshake"
        again = await Viewer.join(proxy.ws_url(), room_name)
        await again.wait_type("snapshot")
        await again.close()

    run(scenario())
    stats = proxy.stats()
    assert stats["connections"]["cut"] == 3 and stats["connections"]["accepted"] == 4
