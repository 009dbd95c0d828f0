"""`GET /recording` of a long room against the real server: produced off the room thread and
streamed (docs/recording.md, "Downloading"), so another room animates without a gap while it
downloads; at most two exports at once (docs/reliability.md); a slow reader holds the export
back instead of making the server keep the recording."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time

import pytest

from recording_helpers import RawGet, dechunk, seed_long_room
from server_helpers import ClientClock, Viewer, metric, run

LONG_ENTRIES = 100_000
FRAME_PERIOD_MS = 1000 / 60
# How late a tick due on time may still run: the service loop's timers fire on whole
# milliseconds (FramePacer.timerSlack), and this machine's kernel runs without kernel preemption
# ("Dynamic Preempt: none"), so even a real-time thread whose timer expires while another process
# is inside a system call waits until that call returns: up to 6.5 ms was seen in 20 runs beside
# a `swift build`. Two periods and this stay under three periods, so a tick the room thread
# missed entirely still fails the test, even right after a skipped still frame.
TICK_LATENESS_MS = 10


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


class TimedViewer(Viewer):
    """A viewer that notes when each message arrived (monotonic ms) in the message itself."""

    def _parse(self, raw) -> dict:
        message = super()._parse(raw)
        message["arrivedAt"] = time.monotonic() * 1000
        return message


def animating_pairs(viewer: Viewer) -> list[tuple[dict, dict]]:
    """Each frame that said the room was still animating, with the frame after it (due one period later)."""
    frames = [frame for _, frame in viewer.frames()]
    return [(before, after) for before, after in zip(frames, frames[1:]) if before["animating"]]


def animation_gaps(viewer: Viewer, field: str) -> list[float]:
    """Gaps in `field` (ms) after each frame that said the room was still animating."""
    return [after[field] - before[field] for before, after in animating_pairs(viewer)]


def threads_named(pid: int, prefix: str) -> list[int]:
    """Thread ids of process `pid` whose name (at most 15 characters) starts with `prefix`."""
    tids = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as comm:
                if comm.read().startswith(prefix):
                    tids.append(int(tid))
        except FileNotFoundError:
            pass  # the thread ended meanwhile
    return tids


# One process per CPU, pinned to it and real-time above the room thread (SCHED_RR, priority 2
# against its 1), that wakes every millisecond and prints each wake-up that came over 10 ms late:
# "start end" on the monotonic clock, in ms. Nothing in the server can hold it up, so where it
# stalls its CPU did (the kernel busy, or the virtual CPU not running). One per CPU because these
# machines are virtual: the host takes one virtual CPU at a time (steal time, in slices ending on
# its 10 ms ticks), so a probe on the other CPU runs on while the room thread's CPU is away. A
# single unpinned probe saw 55 stalls in one CI run and still missed the three behind room gaps
# of 45, 45 and 70 ms. 10 ms, not 20: a gap is excused by a stall as long as it less two periods,
# and the shortest gap held against it (two periods and TICK_LATENESS_MS) needs one of 10 ms.
STALL_PROBE = """
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(2))
last = time.monotonic()
while True:
    time.sleep(0.001)
    now = time.monotonic()
    if now - last > 0.01:
        print(f"{last * 1000:.3f} {now * 1000:.3f}", flush=True)
    last = now
"""


def start_stall_probes() -> list[subprocess.Popen]:
    """A STALL_PROBE on each CPU this process may run on."""
    return [subprocess.Popen([sys.executable, "-c", STALL_PROBE, str(cpu)], stdout=subprocess.PIPE, text=True)
            for cpu in sorted(os.sched_getaffinity(0))]


def machine_stalls(probes: list[subprocess.Popen]) -> list[tuple[float, float]]:
    """The stalls the STALL_PROBEs saw on any CPU (start, end in monotonic ms), once stopped:
    the room thread may have been on any of them."""
    stalls = []
    for probe in probes:
        probe.terminate()
        out, _ = probe.communicate(timeout=10)
        stalls += [tuple(map(float, line.split())) for line in out.splitlines() if line.strip()]
    return sorted(stalls)


def inside_a_stall(before: float, after: float, gap: float, stalls: list[tuple[float, float]]) -> bool:
    """Whether a gap of `gap` ms between frames that arrived at `before` and `after` (monotonic
    ms) is a machine stall's: one stall overlapping those arrivals was as long as the gap, less
    the two periods a gap may take anyway."""
    return any(start <= after and end >= before - gap and end - start >= gap - 2 * FRAME_PERIOD_MS
               for start, end in stalls)


@pytest.mark.alone
def test_another_room_animates_without_a_gap_while_a_long_recording_downloads(server_factory, tmp_path):
    """The issue's letter: no frame gap over two periods while 100,000-entry recordings download.

    The server runs its room thread real-time (`--room-thread-priority realtime`). Without it, on
    this 2-core machine at load 11-12, the room alone, with nothing downloading, showed gaps of
    up to 93 ms: other processes' turn on the CPU, which no design of the export can remove. With
    it, the machine's other processes are out of the room thread's way, so a gap left is made
    inside the server: export work on the room thread, or a lock or page mapping the room thread
    waits for while a lower-priority export thread holds it (the worker runs in SCHED_IDLE)."""
    data = tmp_path / "rooms.sqlite"
    server = server_factory("--room-thread-priority", "realtime", data=data)
    room_threads = threads_named(server.proc.pid, "ws-server")
    assert room_threads and all(os.sched_getscheduler(tid) & ~os.SCHED_RESET_ON_FORK == os.SCHED_RR for tid in room_threads), \
        "the room thread runs real-time (this test needs CAP_SYS_NICE, as root in CI has)"
    lines = seed_long_room(data, "long", LONG_ENTRIES)
    results: list[tuple[int, dict, bytes, bool]] = []
    stop = threading.Event()
    probes = start_stall_probes()

    def downloader():
        while not stop.is_set():
            results.append(download(server.port, "long"))

    async def scenario():
        viewer = await TimedViewer.join(server.ws_url, "busy")
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

    try:
        viewer = run(scenario())
    finally:
        stalls = machine_stalls(probes)
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
    # Where a gap is made decides what it says. `t` is the room time the room thread computed
    # the frame at (docs/protocol.md): a gap in it is time the room thread did not tick, which
    # is what an export on the room thread (as it once was) or holding a lock the room thread
    # waits for makes, and what "the room never froze" means. So `t` is held to the letter: no
    # gap over two periods (and a tick's lateness, TICK_LATENESS_MS). Arrival at this client adds the client's own scheduling (a Python
    # event loop sharing its interpreter with two downloader threads, on 2 cores shared with
    # other test runs and builds): those gaps are checked with a bound such a machine keeps and
    # a frozen room thread still breaks (an export of 100,000 entries takes a second or more).
    room_gaps = animation_gaps(viewer, "t")
    assert len(room_gaps) > 60, f"the room animated throughout: {len(room_gaps)} frames"
    # Two periods is a gap the design makes: an animation frame that would show nothing new is
    # not sent (docs/protocol.md, `frame`), so the next goes out a period later.
    # A gap inside a stall of a CPU (STALL_PROBE) is excused: a CI run read one of
    # 69 ms of 456. The known-bad, an export on the room thread, stalls the room and no probe.
    gaps = [(b["t"] - a["t"], a["arrivedAt"], b["arrivedAt"]) for a, b in animating_pairs(viewer)]
    late = [(round(gap, 2), inside_a_stall(before, after, gap, stalls)) for gap, before, after in gaps
            if gap > 2 * FRAME_PERIOD_MS + TICK_LATENESS_MS]
    assert not [gap for gap, excused in late if not excused], \
        f"room-time gaps over two periods (ms, whether the machine stalled then): {late} of {len(room_gaps)}; stalls {stalls}"
    print(f"room-time gaps over two periods: {late}; stalls over 10 ms on any CPU: {len(stalls)}")
    arrival_gaps = animation_gaps(viewer, "arrivedAt")
    late_arrivals = [round(gap, 1) for gap in arrival_gaps if gap > 2 * FRAME_PERIOD_MS]
    assert len(late_arrivals) <= len(arrival_gaps) // 10, f"arrival gaps over two periods (ms): {late_arrivals}"
    assert max(arrival_gaps) <= 500, f"longest gap between arrivals {max(arrival_gaps):.1f} ms"


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


def anonymous_memory_kib(pid: int) -> int:
    """The process's private anonymous memory in RAM (heap, allocator arenas, mapped buffers):
    what an export could hold. Not VmRSS, which also counts the pages of the binary and its
    libraries (about 38 MB of the debug server's 43) that the kernel maps in as code first runs
    and out again on its own (a DAMON pageout of cold pages runs on these machines). VmRSS once
    grew 4-6 MB in about one run in three; the whole RssAnon is about 4.5 MB and grew at most
    0.75 MB in 30 runs, old build and new, so that growth was file pages, not the export."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    raise AssertionError("no RssAnon")


# What one export may hold (docs/recording.md, "Downloading"): 256 KiB the client has not taken
# plus one piece (72 KiB), two pieces in the handoff and two spare ones, the worker's and the
# relay's piece in hand (6 x 72 KiB), a batch of 100 log entries, the reader's 256 KiB page
# cache, two threads' stacks and allocator arenas: under 1.5 MiB.
EXPORT_MEMORY_KIB = 1536


def test_a_slow_reader_holds_the_export_back_instead_of_filling_server_memory(server_factory, tmp_path):
    data = tmp_path / "rooms.sqlite"
    server = server_factory(data=data)
    pid = server.proc.pid
    lines = seed_long_room(data, "long", LONG_ENTRIES)
    warm = download(server.port, "long")  # the first export's one-off costs (threads, caches)
    recording_bytes = len(warm[2])
    memory_before = anonymous_memory_kib(pid)

    slow = RawGet(server.port, "/recording?room=long", receive_buffer=16 * 1024)
    assert slow.head()[0] == 200
    # Two lanes (the export limit), started by the first export and kept: workers in the
    # SCHED_IDLE policy (at nice 19), relays at the room thread's priority.
    # A thread names and lowers itself once it runs, which the second lane's may not have yet: poll.
    deadline = time.monotonic() + 10
    while True:
        workers, relays = threads_named(pid, "export-worker"), threads_named(pid, "export-relay")
        idle = [tid for tid in workers if os.sched_getscheduler(tid) & ~os.SCHED_RESET_ON_FORK == os.SCHED_IDLE]
        if len(workers) == 2 and len(relays) == 2 and len(idle) == 2:
            break
        assert time.monotonic() < deadline, f"two lanes: workers {workers} (idle policy: {idle}), relays {relays}"
        time.sleep(0.01)  # polling the server's threads
    assert all(os.getpriority(os.PRIO_PROCESS, tid) == 19 for tid in workers), "export workers run at nice 19"
    assert all(os.getpriority(os.PRIO_PROCESS, tid) == 0 for tid in relays), "relays run at normal priority"
    memory_peak = memory_before
    raw = []
    while True:
        data_read = slow.read(32 * 1024)
        if not data_read:
            break
        raw.append(data_read)
        memory_peak = max(memory_peak, anonymous_memory_kib(pid))
        time.sleep(0.002)  # the slow reader's pace, not a synchronisation stand-in
    slow.close()
    body, complete = dechunk(b"".join(raw))
    assert complete and body.count(b"\n") == lines

    buffer_peak = metric(server, "scrollcast_recording_export_buffer_peak_bytes")
    assert 0 < buffer_peak <= 320 * 1024, f"unsent bytes stay near the 256 KiB limit: {buffer_peak}"
    assert recording_bytes > 20 * buffer_peak, "the recording is far larger than what was held"
    growth = memory_peak - memory_before
    assert growth <= EXPORT_MEMORY_KIB, \
        f"server memory grew {growth} KiB during the export of a {recording_bytes // 1024} KiB recording"
