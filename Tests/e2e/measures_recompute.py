"""docs/measures.md's definitions, written again in Python from the document, to check the page's
own figures (Public/js/measure/) against the raw drawn record. Also used by bench/links.py.

    judder(entries)                          -> dict like the page's judder()
    input_to_photon_samples(entries, sent)   -> [{"id", "ms"}] like the page's samples
    nearest_rank(values, q)
"""

from __future__ import annotations

import math


def nearest_rank(values, q):
    """The ceil(q·n)-th smallest value (at least the first), or None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[rank]


def _in_motion(entry) -> bool:
    return bool(entry["animating"]) and entry["seq"] >= 0


def periods(entries):
    """Median room time per seq between consecutive display frames in motion showing different
    frames, and
    median vsync step of consecutive display frames in motion (both None when there is none)."""
    server, display = [], []
    for prev, cur in zip(entries, entries[1:]):
        if not (prev["animating"] and cur["animating"] and prev["seq"] >= 0):
            continue
        display.append(cur["vsync"] - prev["vsync"])
        if cur["seq"] > prev["seq"]:
            server.append((cur["t"] - prev["t"]) / (cur["seq"] - prev["seq"]))
    return nearest_rank(server, 0.5), nearest_rank(display, 0.5)


def _round_half_up(x: float) -> int:
    # JavaScript's Math.round: halves go up.
    return math.floor(x + 0.5)


def judder(entries):
    server_period, display_period = periods(entries)
    ratio = server_period / display_period if server_period and display_period else 1
    showings_allowed = max(1, _round_half_up(ratio))
    step_allowed = max(1, _round_half_up(1 / ratio))

    def allowed_from(i):
        # The display periods between this frame's room time and the next later frame drawn, per seq.
        later = next((e for e in entries[i + 1:] if e["seq"] > entries[i]["seq"]), None)
        if later is None or not display_period:
            return showings_allowed
        per_seq = (later["t"] - entries[i]["t"]) / (later["seq"] - entries[i]["seq"])
        return max(1, _round_half_up(per_seq / display_period))

    motion = repeats = skips = dropped = 0
    roughness = []
    showings = 1
    allowed = allowed_from(0) if entries else 1
    for i in range(1, len(entries)):
        prev, cur = entries[i - 1], entries[i]
        if cur["seq"] == prev["seq"]:
            showings += 1
        else:
            showings, allowed = 1, allowed_from(i)
        if not _in_motion(cur):
            continue
        motion += 1
        if cur["seq"] == prev["seq"]:
            if showings > allowed:
                repeats += 1
        elif prev["seq"] >= 0 and cur["seq"] - prev["seq"] > step_allowed:
            skips += 1
        if prev["animating"] and display_period:
            dropped += max(0, _round_half_up((cur["vsync"] - prev["vsync"]) / display_period) - 1)
        if i >= 2 and prev["animating"] and entries[i - 2]["animating"] and entries[i - 2]["seq"] >= 0:
            roughness.append(abs(cur["offset"] - 2 * prev["offset"] + entries[i - 2]["offset"]))
    return {
        "motionFrames": motion, "repeats": repeats, "skips": skips, "dropped": dropped,
        "judderPct": 100 * (repeats + skips) / motion if motion else None,
        "roughnessPt": sum(roughness) / len(roughness) if roughness else None,
        "serverPeriodMs": server_period, "displayPeriodMs": display_period,
        "showingsAllowed": showings_allowed, "stepAllowed": step_allowed,
    }


def input_to_photon_samples(entries, sent):
    """For each pointer input sent ({"id", "t"}), the first display frame whose server frame names
    this viewer's input with an id at least that one, and that it is newly drawn: at − t."""
    samples = []
    shown = [e for e in entries if e["own"] and e["fresh"]]
    k = 0
    for s in sorted(sent, key=lambda s: s["id"]):
        while k < len(shown) and shown[k]["input"] < s["id"]:
            k += 1
        if k == len(shown):
            break
        samples.append({"id": s["id"], "ms": shown[k]["at"] - s["t"]})
    return samples
