"""`GET /recording` of a long room against the real server: produced off the room thread and
streamed (docs/recording.md, "Downloading"), so another room animates without a gap while it
downloads; at most two exports at once (docs/reliability.md); a slow reader holds the export
back instead of making the server keep the recording."""

from __future__ import annotations

import asyncio
import json
import threading
import time

from recording_helpers import RawGet, dechunk, seed_long_room
from server_helpers import ClientClock, Viewer, metric, run

LONG_ENTRIES = 100_000
FRAME_PERIOD_MS = 1000 / 60


def download(port: int, room: str) -> tuple[int, dict, bytes, bool]:
    """A whole download read as fast as it comes: status, headers, body, whether it was complete."""
    get = RawGet(port, f"/recording?room={room}", receive_buffer=256 * 1024)
    try:
        status, headers = get.head()
        body, complete = dechunk(get.read_all())
        return status, headers, body, complete
    finally:
        get.close()


async def fling(viewer: Viewer, clock: ClientClock):
    """A quick upward flick from y = 650: the room animates on its own for a while after it."""
    await viewer.input("pointerDown", clock.now(), x=160, y=650)
    for step in range(1, 5):
        await asyncio.sleep(0.01)
        await viewer.input("pointerMove", clock.now(), x=160, y=650 - step * 90)
    await viewer.input("pointerUp", clock.now(), x=160, y=250)


def animation_gaps(viewer: Viewer) -> list[float]:
    """Server-side gaps (sentAt, ms) after each frame that said the room was still animating:
    the next frame was due one period later."""
    frames = [frame for _, frame in viewer.frames()]
    return [after["sentAt"] - before["sentAt"] for before, after in zip(frames, frames[1:]) if before["animating"]]


def test_another_room_animates_without_a_gap_while_a_long_recording_downloads(server_factory, tmp_path):
    data = tmp_path / "rooms.sqlite"
    server = server_factory(data=data)
    lines = seed_long_room(data, "long", LONG_ENTRIES)
    results: list[tuple[int, dict, bytes, bool]] = []
    stop = threading.Event()

    def downloader():
        while not stop.is_set():
            results.append(download(server.port, "long"))

    async def scenario():
        viewer = await Viewer.join(server.ws_url, "busy")
        await viewer.wait_type("snapshot")
        clock = ClientClock()
        threads = [threading.Thread(target=downloader, daemon=True) for _ in range(2)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 60
        while len([r for r in results if r[0] == 200]) < 4 and time.monotonic() < deadline:
            await fling(viewer, clock)
            await asyncio.sleep(0.4)
        stop.set()
        for thread in threads:
            await asyncio.get_running_loop().run_in_executor(None, thread.join, 60)
        await viewer.close()
        return viewer

    viewer = run(scenario())
    complete = [r for r in results if r[0] == 200]
    assert len(complete) >= 4, f"four downloads within a minute: {[r[0] for r in results]}"
    for status, headers, body, finished in complete:
        assert finished, "every download ended with its final chunk"
        assert headers["transfer-encoding"] == "chunked"
        assert body.count(b"\n") == lines, "the header and every entry"
    assert complete[0][2] == complete[-1][2], "the same recording each time"
    last = json.loads(complete[0][2].splitlines()[-1])
    assert last == {"type": "input", "viewer": "v1", "id": LONG_ENTRIES - 1, "t": 16.5 * LONG_ENTRIES,
                    "kind": "wheel", "dx": 0, "dy": (LONG_ENTRIES - 1) % 7 + 1, "mode": "pixel"}
    gaps = animation_gaps(viewer)
    assert len(gaps) > 60, f"the room animated throughout: {len(gaps)} frames"
    # Each export here takes a second or more of a debug build's CPU: on the room thread (as it
    # was) every download stopped the frames for that long, and an export thread run at a lower
    # priority stalled them up to 0.7 s when it was preempted holding a lock the room thread
    # wanted. What is left is the machine's own scheduling (2 cores shared by several test runs,
    # load average up to 16), which holds any thread back a slice now and then.
    late = [gap for gap in gaps if gap > 2 * FRAME_PERIOD_MS]
    assert len(late) <= len(gaps) // 10, f"frame gaps over two periods (ms): {late} of {len(gaps)}"
    assert max(gaps) <= 10 * FRAME_PERIOD_MS, f"longest frame gap {max(gaps)} ms"


def test_a_third_concurrent_export_is_refused_with_retry_after(server_factory, tmp_path):
    data = tmp_path / "rooms.sqlite"
    server = server_factory(data=data)
    seed_long_room(data, "long", LONG_ENTRIES)
    # Two readers take their headers and stop reading: their exports wait on them.
    stalled = [RawGet(server.port, "/recording?room=long") for _ in range(2)]
    for get in stalled:
        assert get.head()[0] == 200
    third = RawGet(server.port, "/recording?room=long")
    status, headers = third.head()
    body, complete = dechunk(third.read_all())
    third.close()
    assert status == 503 and headers["retry-after"] == "5", (status, headers)
    assert complete and b"2 recordings are being exported already" in body
    assert metric(server, "scrollcast_recording_exports_refused_total") == 1
    assert metric(server, "scrollcast_recording_exports") == 2

    # The stalled readers go away: their exports stop, and the next one is served.
    for get in stalled:
        get.close()
    deadline = time.monotonic() + 10
    while metric(server, "scrollcast_recording_exports") != 0:
        assert time.monotonic() < deadline, "the exports of readers that left end"
        time.sleep(0.05)  # polling the server's gauge
    status, _, body, complete = download(server.port, "long")
    assert status == 200 and complete and body.count(b"\n") == LONG_ENTRIES + 1


def test_a_slow_reader_holds_the_export_back_instead_of_filling_server_memory(server_factory, tmp_path):
    data = tmp_path / "rooms.sqlite"
    server = server_factory(data=data)
    lines = seed_long_room(data, "long", LONG_ENTRIES)
    warm = download(server.port, "long")  # the first export's one-off costs (threads, caches)
    recording_bytes = len(warm[2])

    slow = RawGet(server.port, "/recording?room=long", receive_buffer=16 * 1024)
    assert slow.head()[0] == 200
    raw = []
    while True:
        data_read = slow.read(32 * 1024)
        if not data_read:
            break
        raw.append(data_read)
        time.sleep(0.002)  # the slow reader's pace, not a synchronisation stand-in
    slow.close()
    body, complete = dechunk(b"".join(raw))
    assert complete and body.count(b"\n") == lines

    buffer_peak = metric(server, "scrollcast_recording_export_buffer_peak_bytes")
    assert 0 < buffer_peak <= 320 * 1024, f"unsent bytes stay near the 256 KiB limit: {buffer_peak}"
    assert recording_bytes > 20 * buffer_peak, "the recording is far larger than what was held"
    # The process's RSS is not asserted: in CI and on a quiet machine it grew 0.2 MB in most runs
    # but 4-6 MB in about one in three, for reasons not yet found (not glibc's per-thread arenas:
    # MALLOC_ARENA_MAX=1 did not change it). The export's own accounting above is what this checks.
