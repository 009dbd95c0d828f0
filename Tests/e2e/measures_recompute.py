"""docs/measures.md's definitions, written again in Python from the document, to check the page's
own figures (Public/js/measure/picture.js) against the raw drawn record. Also used by bench/links.py.

    picture_measures(entries, sent)   -> dict like the page's pictureMeasures()
    input_to_picture(entries, sent)   -> [{"id", "ms"}]
    driver_to_watcher(sent, applied, entries, shift) -> [{"id", "ms"}]
    nearest_rank(values, q)
"""

from __future__ import annotations

import math

WRONG_PT = 0.5
CLOCK_TOLERANCE = 0.25


def nearest_rank(values, q):
    """The ceil(q·n)-th smallest value (at least the first), or None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[rank]


def motion(entries) -> list[bool]:
    """Entry i ≥ 1 is in motion when it animates, or its drawn offset or the room's changed; the
    first entry after a pause (`resumed`: the page explored) is only a reference, as the first is."""
    m = [False] * len(entries)
    for i in range(1, len(entries)):
        prev, cur = entries[i - 1], entries[i]
        if cur.get("resumed"):
            continue
        room_moved = cur["room"] is not None and prev["room"] is not None and cur["room"] != prev["room"]
        m[i] = bool(cur["animating"]) or cur["offset"] != prev["offset"] or room_moved
    return m


def _right(e) -> bool:
    return e["room"] is not None and abs(e["offset"] - e["room"]) <= WRONG_PT


def wrong_pictures(entries, m):
    errors = [abs(e["offset"] - e["room"]) for e, moving in zip(entries, m) if moving and e["room"] is not None]
    unconfirmed = sum(1 for e, moving in zip(entries, m) if moving and e["room"] is None)
    wrong = sum(1 for x in errors if x > WRONG_PT)
    return {"judged": len(errors), "wrong": wrong, "unconfirmed": unconfirmed,
            "pct": 100 * wrong / len(errors) if errors else None, "largestPt": max(errors) if errors else None}


def judder(entries, m):
    frames = freezes = slowdowns = jumps = 0
    steps = []
    for i in range(2, len(entries)):
        if not (m[i] and m[i - 1]):
            continue
        prev, cur = entries[i - 1], entries[i]
        interval, step = cur["vsync"] - prev["vsync"], cur["t"] - prev["t"]
        frames += 1
        if step < (1 - 3 * CLOCK_TOLERANCE) * interval:
            freezes += 1
        elif step < (1 - CLOCK_TOLERANCE) * interval:
            slowdowns += 1
        elif step > (1 + CLOCK_TOLERANCE) * interval:
            jumps += 1
        if cur["room"] is not None and prev["room"] is not None:
            steps.append(abs((cur["offset"] - prev["offset"]) - (cur["room"] - prev["room"])))
    off = sum(1 for x in steps if x > WRONG_PT)
    return {
        "clock": {"frames": frames, "freezes": freezes, "slowdowns": slowdowns, "jumps": jumps,
                  "pct": 100 * (freezes + slowdowns + jumps) / frames if frames else None},
        "picture": {"judged": len(steps), "off": off, "pct": 100 * off / len(steps) if steps else None,
                    "largestPt": max(steps) if steps else None},
    }


def _first_right_pictures(entries, inputs):
    """For each (id, event time, candidate) of `inputs` (the event on the entries' clock, ids
    increasing), the first entry after the event that `candidate` accepts, is not `never` judged
    and is judged right: [{"id", "ms"}]. A candidate not judged yet ends the search (its sample
    comes once it is judged), one never to be judged is passed over."""
    samples = []
    for input_id, event, candidate in inputs:
        if not entries or event < entries[0]["at"]:
            continue
        found = next((e for e in entries if e["at"] > event and not e.get("never") and candidate(e)
                      and (e["room"] is None or _right(e))), None)
        if found is not None and found["room"] is None:
            break
        if found is not None:
            samples.append({"id": input_id, "ms": found["at"] - event})
    return samples


def input_to_picture(entries, sent):
    """For each pointer input ({"id", "t"}), the first display frame after its event whose picture
    names this viewer's input with that id or later and is judged right."""
    return _first_right_pictures(entries, [
        (s["id"], s["t"], lambda e, i=s["id"]: e["own"] and e["input"] >= i) for s in sorted(sent, key=lambda s: s["id"])])


def driver_to_watcher(sent, applied, entries, shift):
    """For each of a driver's pointer inputs ({"id", "t"}, on the driver's page clock) that the
    room applied (`applied`: id -> its room time), the first display frame of a watcher (its drawn
    record, `entries`, on the watcher's page clock, which reads `shift` ms less than the driver's
    at one instant: the watcher's timeOrigin minus the driver's) after the event whose picture
    stands at that room time or later and is judged right: the event to that frame's `at`."""
    return _first_right_pictures(entries, [
        (s["id"], s["t"] - shift, lambda e, at=applied[s["id"]]: e["t"] >= at)
        for s in sorted(sent, key=lambda s: s["id"]) if s["id"] in applied])


def lag(entries, m):
    values = [e["present"] - e["t"] for e, moving in zip(entries, m) if moving and e["present"] is not None]
    return {"p50": nearest_rank(values, 0.5), "p99": nearest_rank(values, 0.99), "samples": len(values)}


def picture_measures(entries, sent):
    m = motion(entries)
    ms = [s["ms"] for s in input_to_picture(entries, sent)]
    return {
        "motionFrames": sum(m),
        "wrong": wrong_pictures(entries, m),
        **judder(entries, m),
        "inputToPicture": {"p50": nearest_rank(ms, 0.5), "p99": nearest_rank(ms, 0.99), "count": len(ms)},
        "lag": lag(entries, m),
    }
