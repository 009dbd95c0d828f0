"""Driver to watcher (docs/measures.md): how long after a driver's pointer event another page in
the room, a watcher, first draws that input where the room puts it. In real Chromium against the
real server (both pages in one browser: one wall clock), recomputed from the raw records: the
driver's inputs sent, the `applied` messages the watcher's socket received (each input's room
time), the watcher's drawn record. A driver's clock leads the room, and the room applies its
inputs when their stamps come due, so every watcher sees them that much later: the figure reads
the driver's lead plus the watcher's own lag behind the room. The known-bad case: the same driver
held at a lead of 450 ms (test hook `holdLead`, within the room's 500 ms bound), whose own
pictures stay right and prompt while every watcher sees its motion half a second late; the
figure reads it, and the driver's own measures cannot."""

from __future__ import annotations

import pytest

from measures_recompute import nearest_rank
from measures_session import (
    ReceivedFrames, driver_to_watcher_ms, fling, measured, record, record_total, room_offset, watcher_delays,
)
from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)
from replica_session import frames_to_show, ms_summary, wait_running

HELD_LEAD_MS = 450
DISPLAY_FRAME_MS = 1000 / 60


def drive_and_measure(driver, watcher, received) -> dict:
    """A fling and a slow drag by `driver`; driver to watcher over them, the watcher's true lag
    and the driver's lead and own measures."""
    d_start, w_start = record_total(driver.page), record_total(watcher.page)
    first_id = driver.page.evaluate("window.scrollcast.sentPointerInputs().reduce((m, s) => Math.max(m, s.id), 0)") + 1
    # Its inputs are what is measured, not the flight: a loaded machine (a CI run at load 9 read
    # no fling in five drags) may take the release's speed away.
    fling(driver, must_fly=False)
    driver.mouse_drag(200, 300, 200, 600, steps=30)
    driver.wait_idle()
    watcher.wait_idle()
    entries = record(watcher.page, w_start)
    own, _, _, _ = measured(driver.page, (d_start, record_total(driver.page)))
    lag = watcher_delays(watcher.page, received, entries)["lag"]
    return {"ms": driver_to_watcher_ms(driver.page, watcher.page, received, entries),
            "held": held_ms(driver, received, first_id),
            "lead": driver.page.evaluate("window.scrollcast.test.lead()"), "watcherLag": nearest_rank(lag, 0.5),
            "watcherLag99": nearest_rank(lag, 0.99),
            "own": own, "photons": frames_to_show(driver.page)}


def held_ms(driver, received, first_id: int) -> list[float]:
    """Per pointer input of `driver` from id `first_id` on that the room applied: its room time less the room's present when
    its event happened, on the machine's one clock (`room_offset`): how much of driver to watcher
    the driver's lead made, input by input, whatever the watcher's lag at that moment."""
    raw = driver.page.evaluate("() => ({ origin: performance.timeOrigin, viewer: window.scrollcast.state.viewer, "
                               "sent: window.scrollcast.sentPointerInputs() })")
    room = room_offset(received)
    applied = {i: t for (v, i), t in received.applied.items() if v == raw["viewer"]}
    return [applied[s["id"]] - (raw["origin"] + s["t"] + room) for s in raw["sent"]
            if s["id"] >= first_id and s["id"] in applied]


@pytest.mark.long(33)
def test_driver_to_watcher_reads_the_drivers_lead_and_a_held_lead_reads_badly(browser, page_server, room, artifacts):
    pages, received = {}, None
    for label in ("watcher", "driver"):
        # Each in a window of its own (headless Chromium starves a tab behind another).
        page = artifacts.watch(browser.new_context().new_page(), label)
        if label == "watcher":
            received = ReceivedFrames(page)
        pages[label] = ScrollcastPage(page, page_server.base_url, room).open("&replica=on")
    for sc in pages.values():
        wait_running(sc)
    driver, watcher = pages["driver"], pages["watcher"]
    driver.page.bring_to_front()
    # A first drag settles the driver's lead (its start comes down to what its inputs take once
    # the room says it held them, docs/wasm.md): the run below then reads the lead it is bound by.
    # A drag, not a fling: any stamped input is held, and a loaded machine can take a fling's
    # speed away (a fresh-clone run at load 4-6: "no fling in 3 drags").
    driver.mouse_drag(200, 600, 200, 300, steps=20)
    driver.wait_idle()
    runs = {}
    for label in ("own lead", "held lead"):
        if label == "held lead":
            driver.page.evaluate(f"window.scrollcast.test.holdLead({HELD_LEAD_MS})")
        r = runs[label] = drive_and_measure(driver, watcher, received)
        r["p50"], r["p99"] = nearest_rank(r["ms"], 0.5), nearest_rank(r["ms"], 0.99)
        print(f"loopback, driver's {label} ({r['lead']['lead']:.0f} ms, base {r['lead']['base']:.0f}, "
              f"{r['lead']['late']} late): driver to watcher p50 {r['p50']:.0f} p99 {r['p99']:.0f} ms "
              f"({len(r['ms'])} inputs), the watcher's true lag p50 {r['watcherLag']:.0f} ms; the driver's own "
              f"wrong {r['own']['wrong']['wrong']}/{r['own']['wrong']['judged']}, input-to-picture {ms_summary(r['photons'])}")
    good, bad = runs["own lead"], runs["held lead"]
    for r in (good, bad):
        assert len(r["ms"]) >= 20, r["ms"]
        # Right on both: the driver's own pictures do not see how late the watchers are.
        assert r["own"]["wrong"]["wrong"] == 0 or r["lead"]["late"] > 0, r["own"]["wrong"]
    # What it is made of: the driver's lead and the watcher's lag behind the room (which changes
    # between the runs: the watcher's prior ends when its window is full, docs/wasm.md), and
    # display frames of the two pages' own loops (the event's handler, the watcher's next frame).
    good["beyond"], bad["beyond"] = good["p50"] - good["watcherLag"], bad["p50"] - bad["watcherLag"]
    # Not below the watcher's own lag (two display frames aside): the watcher shows the driver's
    # inputs no sooner than it shows the room. Only a floor: the two medians are over different
    # samples and the watcher's prior (217 ms) ends mid-run when its window fills, so beyond the
    # median lag read up to 171 ms at load with a lead of 23-40 ms.
    assert good["beyond"] >= -2 * DISPLAY_FRAME_MS, good
    # Above, by what the room held the inputs (held_ms), not by the lead at the end: a late input
    # raises the lead mid-run (a local run: lead 45 ms at the end, 1 late, p50 155 ms against a
    # bound of 143 by the end's lead).
    assert good["p50"] <= nearest_rank(good["held"], 0.5) + good["watcherLag99"] + 4 * DISPLAY_FRAME_MS, good
    # The held driver: its inputs come due 450 ms after they were drawn, and so on every watcher.
    # Judged input by input (held_ms), not as the figure's median less the lag's: those are over
    # different samples, and with the watcher's lag at 412 ms at load in a fresh-clone run they
    # missed adding up by 177 ms (p50 684, beyond 273; by 46 ms in another, lag 198).
    held = nearest_rank(bad["held"], 0.5)
    print(f"held by the room, p50: own lead {nearest_rank(good['held'], 0.5):.0f} ms, held lead {held:.0f} ms")
    assert bad["p50"] >= HELD_LEAD_MS and held >= HELD_LEAD_MS - 3 * DISPLAY_FRAME_MS, (held, bad)
