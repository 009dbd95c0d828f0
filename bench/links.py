#!/usr/bin/env python3
"""What a real link does to viewers (issue "real links", `make bench-links`): today's baselines.

Per link profile (LINKS_PROFILES, default `loopback 4g bad-wifi`), the release server behind the
real link emulator (`scrollcast-link`, started through Tests/e2e/link_helpers.py):

  - in real headless Chromium, through the link: page load to first frame, cold and on a reload (median of
    LINKS_LOADS fresh page loads, the page's own `firstFrameAt()`), then LINKS_FLINGS flings
    in one page, each measured by the page itself (docs/measures.md): judder over every
    display frame in motion of all flings (repeats + skips ÷ display frames in motion), the
    drawn offset's roughness, and the driver's input-to-photon p50/p99 over the pointer inputs
    of all flings. Every figure is checked against the Python recomputation
    (Tests/e2e/measures_recompute.py) from the raw record; a disagreement stops the run.
  - `scrollcast-load --link PROFILE` (1 room, LINKS_VIEWERS viewers, 1 driver playing `drag`,
    LINKS_DURATION s): input-to-frame p50/p99 and frame inter-arrival jitter p50/p99.

Prints a table, rewrites the "Links" section of docs/benchmarks.md (other sections are kept as
they are) and ends with the headline `links_4g_judder_pct=X`. Baselines, not targets.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(os.environ.get("LINKS_BIN", ROOT / ".build" / "release"))
os.environ.setdefault("SCROLLCAST_BIN", str(BIN / "scrollcast"))
sys.path.insert(0, str(ROOT / "Tests" / "e2e"))

from benchmarks_doc import replace_section  # noqa: E402
from link_helpers import LinkProxy  # noqa: E402  (the e2e tests' link emulator wrapper)
from measures_recompute import nearest_rank  # noqa: E402
from measures_session import fling, fling_judder, first_frame_ms, photon  # noqa: E402
from page_fixtures import ScrollcastPage  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from server_helpers import RunningServer  # noqa: E402

PROFILES = os.environ.get("LINKS_PROFILES", "loopback 4g bad-wifi").split()
FLINGS = int(os.environ.get("LINKS_FLINGS", "8"))
DRAGS = int(os.environ.get("LINKS_DRAGS", "2"))          # slow drags after the flings: more input-to-photon samples
DRAG_STEPS = 30
LOADS = int(os.environ.get("LINKS_LOADS", "5"))
VIEWERS = int(os.environ.get("LINKS_VIEWERS", "10"))
DURATION = float(os.environ.get("LINKS_DURATION", "10"))
SEED = int(os.environ.get("LINKS_SEED", "1"))
SECTION = "## Links (make bench-links)"
LOAD_TOOL = BIN / "scrollcast-load"
REPLICA_MODES = os.environ.get("LINKS_REPLICA", "on off").split()
# Only the page loads and reloads, logged (nothing written): LINKS_LOADS_ONLY=1.
LOADS_ONLY = os.environ.get("LINKS_LOADS_ONLY") == "1"


def log(message):
    print(f"[links] {message}", file=sys.stderr, flush=True)


def same(a, b) -> bool:
    return a == b or (a is not None and b is not None and abs(a - b) <= 1e-9 * max(1.0, abs(b)))


def load_times(browser, base_url: str, profile: str) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Page load to first frame, LOADS fresh loads per replica mode (a new browser context: an
    empty cache), each followed by a reload (its cache warm: every file revalidated, 304s), the
    modes taking turns so that the machine's load (shared, changing by the second) weighs on
    both alike. Returns (loads, reloads) per mode."""
    loads = {replica: [] for replica in REPLICA_MODES}
    reloads = {replica: [] for replica in REPLICA_MODES}
    for i in range(LOADS):
        for replica in REPLICA_MODES:
            context = browser.new_context()
            page = context.new_page()
            page.goto(f"{base_url}/?room=links-{profile}-{replica}-load-{i}&replica={replica}")
            loads[replica].append(first_frame_ms(page))
            page.reload()
            reloads[replica].append(first_frame_ms(page))
            context.close()
    return loads, reloads


def page_figures(browser, base_url: str, profile: str, replica: str, loads: list[float], reloads: list[float]) -> dict:
    """Judder and input-to-photon in Chromium through one link, with the page's replica `on`
    (the default) or `off` (server frames only); `loads` and `reloads` its load-to-first-frame
    times, cold and warm."""
    context = browser.new_context()
    page = context.new_page()
    sc = ScrollcastPage(page, base_url, f"links-{profile}-{replica}-fling").open(f"&replica={replica}")
    sc.wait_idle()
    if replica == "on":
        sc.wait("s => s.replica.running", timeout=20000)
    totals = {"motionFrames": 0, "repeats": 0, "skips": 0, "dropped": 0}
    roughness = []
    for _ in range(FLINGS):
        span = fling(sc)
        mine, entries, expected = fling_judder(page, span)
        if not all(same(mine[k], v) for k, v in expected.items()):
            raise SystemExit(f"bench: the page's judder {mine} is not the definition's {expected}")
        for key in totals:
            totals[key] += mine[key]
        if mine["roughnessPt"] is not None:
            roughness.append(mine["roughnessPt"])
    for _ in range(DRAGS):
        sc.drag(200, 300, 200, 600, steps=DRAG_STEPS)
        sc.wait_idle()
    samples, recomputed = photon(page)
    if [s["id"] for s in samples] != [s["id"] for s in recomputed] or any(
            not same(a["ms"], b["ms"]) for a, b in zip(samples, recomputed)):
        raise SystemExit("bench: the page's input-to-photon samples are not the definition's")
    state = page.evaluate("window.scrollcast.state.replica")
    context.close()
    ms = [s["ms"] for s in samples]
    return {
        "compared": state.get("compared", 0), "mismatches": state.get("mismatches", 0),
        "load_ms": statistics.median(loads), "loads_ms": loads,
        "reload_ms": statistics.median(reloads), "reloads_ms": reloads,
        "judder_pct": 100 * (totals["repeats"] + totals["skips"]) / totals["motionFrames"] if totals["motionFrames"] else None,
        **totals,
        "roughness_pt": statistics.mean(roughness) if roughness else None,
        "photon_p50": nearest_rank(ms, 0.5), "photon_p99": nearest_rank(ms, 0.99), "photon_samples": len(ms),
        # The page's very first pointer input (before the replica's clock has learnt its lead).
        "photon_first": ms[0] if ms else None,
    }


def load_tool_has_link() -> bool:
    """Whether this scrollcast-load emulates a link itself (`--link`)."""
    return "--link" in subprocess.run([str(LOAD_TOOL), "--help"], capture_output=True, text=True).stdout


def load_figures(server: RunningServer, proxy: LinkProxy, profile: str) -> dict:
    """scrollcast-load through the same link profile: input-to-frame and inter-arrival jitter.
    With `--link` the tool emulates the link itself; a tool without it goes through the proxy."""
    via = ["--url", server.ws_url, "--link", profile] if load_tool_has_link() else ["--url", proxy.ws_url()]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "load.json"
        cmd = [str(LOAD_TOOL), *via, "--rooms", "1",
               "--viewers", str(VIEWERS), "--drivers", "1", "--script", "drag", "--duration", f"{DURATION:g}",
               "--seed", str(SEED), "--room-prefix", f"links-{profile}", "--json", str(out)]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=DURATION + 120)
        if run.returncode != 0 or not out.exists():
            raise SystemExit(f"bench: {' '.join(cmd)} failed ({run.returncode}): {run.stderr[-2000:]}")
        report = json.loads(out.read_text())
    latency = report.get("latencyMs") or {}
    jitter = report.get("interArrivalJitterMs") or {}
    link = report.get("link") or {}
    return {"frame_p50": latency.get("p50"), "frame_p99": latency.get("p99"),
            "jitter_p50": jitter.get("p50"), "jitter_p99": jitter.get("p99"),
            "link_error_p99_us": (link.get("timingErrorUs") or {}).get("p99"), "load_via": " ".join(via[2:]) or "proxy"}


def fmt(value, digits=1):
    return "–" if value is None else f"{value:.{digits}f}"


def table(results: dict) -> list[str]:
    lines = [
        "| profile | page | load → first frame (ms) | reload → first frame (ms) | fling judder (%) | repeats / skips / in motion | dropped by the browser | roughness (pt) "
        "| input-to-photon p50 / p99 (ms) | load tool input-to-frame p50 / p99 (ms) | inter-arrival jitter p50 / p99 (ms) | emulator timing error p99 (µs) |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for (profile, replica), r in results.items():
        page = f"replica ({r['compared']} compared, {r['mismatches']} mismatches)" if replica == "on" else "server frames"
        lines.append(
            f"| `{profile}` | {page} | {fmt(r['load_ms'], 0)} | {fmt(r['reload_ms'], 0)} | {fmt(r['judder_pct'])} | {r['repeats']} / {r['skips']} / {r['motionFrames']} "
            f"| {r['dropped']} | {fmt(r['roughness_pt'], 2)} | {fmt(r['photon_p50'], 0)} / {fmt(r['photon_p99'], 0)} ({r['photon_samples']}) "
            f"| {fmt(r.get('frame_p50'))} / {fmt(r.get('frame_p99'))} | {fmt(r.get('jitter_p50'))} / {fmt(r.get('jitter_p99'))} | {fmt(r.get('link_error_p99_us'), 0)} |")
    return lines


def section(results: dict, seconds: float, load: tuple[float, float]) -> list[str]:
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    # The load tool emulates the link itself when it can (`--link`), else it goes through the proxy.
    link_flag = any(r.get("load_via", "proxy") != "proxy" for r in results.values())
    load_via = "--url ws://SERVER/ws --link PROFILE" if link_flag else "--url ws://PROXY/ws"
    return [
        SECTION,
        "",
        f"Run {when} on this machine ({os.cpu_count()} CPUs, shared; 1-minute load average {load[0]:.1f} at the start, "
        f"{load[1]:.1f} at the end), {seconds:.0f} s. Release server behind the link "
        "emulator (`scrollcast-link`, profiles in docs/links.md); the page in headless Chromium "
        f"(60 Hz display) through the same link. Per profile: page load to first frame (median of {LOADS} fresh loads "
        "per mode, the two modes taking turns; each in a new browser context, so with an empty cache) and a reload "
        "of each (its cache warm: every file revalidated, 304s), "
        f"{FLINGS} flings (a {6}-step mouse drag up the long table, released, then rest), measured by the page "
        "itself (docs/measures.md) and checked against the Python recomputation from its raw record; then "
        f"`scrollcast-load {load_via} --rooms 1 --viewers {VIEWERS} --drivers 1 --script drag --duration {DURATION:g}`. "
        "Each profile twice: the page running the engine itself (`replica`, the default: docs/wasm.md) and with "
        "`?replica=off` (`server frames`, as before the engine came to the page); the load tool does not draw, so its "
        "columns are on the first row only. Targets (issue \"engine in the page\"): judder ≤ 2 % on 4g and ≤ 1 % on "
        "loopback, input-to-photon p50 ≤ 16.7 ms and p99 ≤ 33.4 ms, load to first frame at most 50 ms slower than `server frames`.",
        "",
        *table(results),
        "",
        "- **fling judder**: display frames in motion that repeat a server frame when a newer one was due or skip "
        "server frames, ÷ display frames in motion, over all flings. **roughness**: mean |second difference| of "
        "the drawn offset per display frame in motion (mean of the flings). **dropped by the browser**: display "
        "frames during motion in which the page got no animation-frame callback (its main thread was busy: "
        "this machine's load, not the link); they are not in the judder.",
        "- **input-to-photon**: the driver's pointer event (its timestamp) to the first display frame showing a server "
        "frame that applied it; nearest-rank p50/p99 over the pointer inputs of all flings and of "
        f"{DRAGS} slow {DRAG_STEPS}-step drags after them (sample count in brackets).",
        "- **load tool**: input-to-frame is sending input id N to receiving the first frame naming an id ≥ N; "
        "inter-arrival jitter is |arrival gap − `sentAt` gap| of successive frames at each connection; the "
        "emulator's timing error is how late the in-process link released its chunks (docs/links.md).",
        "",
    ]


def main():
    for binary in (BIN / "scrollcast", BIN / "scrollcast-link", LOAD_TOOL):
        if not binary.exists():
            raise SystemExit(f"bench: {binary} is missing; run `make bench-links` (it builds them first)")
    began = time.monotonic()
    load_before = os.getloadavg()[0]
    results = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium")
        for profile in PROFILES:
            server = RunningServer("--allowed-origins", "*")   # the page comes with the proxy's origin
            proxy = LinkProxy.start(server.port, profile, seed=SEED)
            try:
                log(f"{profile}: page loads, the replica on and off in turn")
                loads, reloads = load_times(browser, f"http://127.0.0.1:{proxy.port}", profile)
                for replica in REPLICA_MODES:
                    log(f"{profile} replica {replica}: load {fmt(statistics.median(loads[replica]), 0)} ms "
                        f"{[round(x) for x in loads[replica]]}, reload {fmt(statistics.median(reloads[replica]), 0)} ms "
                        f"{[round(x) for x in reloads[replica]]}")
                if LOADS_ONLY:
                    continue
                for replica in REPLICA_MODES:
                    log(f"{profile}: page (replica {replica}) through the link on :{proxy.port}")
                    results[(profile, replica)] = page_figures(browser, f"http://127.0.0.1:{proxy.port}", profile, replica,
                                                                loads[replica], reloads[replica])
                    r = results[(profile, replica)]
                    log(f"{profile} replica {replica}: judder {fmt(r['judder_pct'])} %, input-to-photon "
                        f"{fmt(r['photon_p50'], 0)}/{fmt(r['photon_p99'], 0)} ms (first input {fmt(r['photon_first'], 0)} ms), "
                        f"load {fmt(r['load_ms'], 0)} ms")
                log(f"{profile}: scrollcast-load through the link")
                results[(profile, REPLICA_MODES[0])].update(load_figures(server, proxy, profile))
            finally:
                proxy.stop()
                server.stop()
        browser.close()
    if LOADS_ONLY:
        return
    print("\n".join(table(results)))
    replace_section(SECTION, section(results, time.monotonic() - began, (load_before, os.getloadavg()[0])))
    log("wrote the Links section of docs/benchmarks.md")
    for (profile, replica), r in results.items():
        key = f"{profile.replace('-', '_')}_replica_{replica}"
        print(f"links_{key}_load_to_first_frame_ms={fmt(r['load_ms'], 0)}")
        print(f"links_{key}_reload_to_first_frame_ms={fmt(r['reload_ms'], 0)}")
        print(f"links_{key}_judder_pct={fmt(r['judder_pct'])}")
        print(f"links_{key}_input_to_photon_p50_ms={fmt(r['photon_p50'], 0)}")
        print(f"links_{key}_input_to_photon_p99_ms={fmt(r['photon_p99'], 0)}")
        print(f"links_{key}_first_input_to_photon_ms={fmt(r['photon_first'], 0)}")
    headline = results.get(("4g", "on"))
    print(f"links_4g_judder_pct={fmt(headline['judder_pct']) if headline else '–'}")


if __name__ == "__main__":
    main()
