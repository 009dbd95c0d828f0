"""Version 2's inputs-stream changes (docs/protocol.md, "Inputs applied" and "`batch` (`10`)"),
decoded as version 1's JSON has them: an `applied`, a `batch` of them, their kinds' fields and the
`num` number format. Part of the suite's decoder written from the doc alone (wire_v2.py)."""

from __future__ import annotations

from wire_v2_reader import Reader, WireV2Error

APPLIED_CAUSES = ["input", "leave", "unavailable", "takeBack", "state"]
APPLIED_KINDS = [None, "pointerDown", "pointerMove", "pointerUp", "pointerCancel", "wheel", "key", "scrollToRow",
                 "longPressBegan", "longPressMove", "longPressEnd", "longPressCancel", "resize", "reducedMotion",
                 "rowOrder", "rest"]


def applied(r: Reader) -> dict:
    """An `applied` message (docs/protocol.md, "Inputs applied"), as version 1's JSON has it."""
    message = {"type": "applied", "after": r.uvar(), "t": r.f64()}
    flags = r.u8()
    if flags & ~3:
        raise WireV2Error(f"reserved bits set in flags {flags}")
    if flags & 2:
        message["complete"] = None  # JSON's key order: `complete` follows `t`
    message["viewer"] = r.str() if flags & 1 else None
    if flags & 2:
        message["complete"] = r.f64()
    message["id"] = r.uvar()
    message["cause"] = APPLIED_CAUSES[r.u8()]
    return change(r, r.u8(), message, lambda r: r.f64())


def num_part(r: Reader):
    """A `num` (docs/protocol.md, "`batch` (`10`)") as written: (value, is_count); a count of
    1/256 or 1/100, or an f64 (is_count False)."""
    h = r.uvar()
    tag, z = h % 4, h // 4
    if tag == 2:
        if h != 2:
            raise WireV2Error("an f64 number's head must be 2")
        return r.f64(), False
    if tag == 3:
        raise WireV2Error("number tag 3 is reserved")
    n = z // 2 if z % 2 == 0 else -(z + 1) // 2
    return (n / 256 if tag == 0 else n / 100) + 0.0, True


def num(r: Reader, base=None) -> float:
    """A `num`; a count is a Δ from `base` when there is one."""
    x, is_count = num_part(r)
    return base + x if base is not None and is_count else x


def batch(r: Reader) -> dict:
    """A `batch`: its front (changes, count, the last `t`, complete), then entries with a head
    byte, times as Δs from the next entry's, `num` coordinates."""
    message = {"type": "batch", "changes": r.uvar(), "complete": None, "applied": []}
    count = r.uvar()
    last = num(r) if count else None
    message["complete"] = num(r, last)
    times, previous = [], None
    for i in range(count):
        head = r.u8()
        same = bool(head & 0x80)
        if previous is None:
            if same:
                raise WireV2Error("the first change of a batch cannot repeat a viewer")
            entry = {"after": r.uvar(), "t": last}
        else:
            entry = {"after": previous["after"] + r.svar(), "t": last}
        if i + 1 < count:
            times.append(num_part(r))
        if same:
            entry.update(viewer=previous["viewer"], id=previous["id"] + 1)
        else:
            entry["viewer"] = r.str() or None
            entry["id"] = r.uvar()
        entry["cause"] = APPLIED_CAUSES[(head >> 4) & 7]
        change(r, head & 15, entry, num)
        message["applied"].append(entry)
        previous = entry
    for i in reversed(range(len(times))):
        x, is_count = times[i]
        message["applied"][i]["t"] = message["applied"][i + 1]["t"] + x if is_count else x
    return message


def change(r: Reader, code: int, message: dict, number) -> dict:
    """The kind `code` and its fields into `message`, numbers read by `number`."""
    kind = APPLIED_KINDS[code]
    message["kind"] = kind
    if kind in ("pointerCancel", "longPressCancel"):
        pass
    elif kind == "wheel":
        message.update(dx=number(r), dy=number(r), mode=["pixel", "line", "page"][r.u8()])
    elif kind == "key":
        message["key"] = ["arrowUp", "arrowDown", "pageUp", "pageDown", "space", "shiftSpace", "home", "end"][r.u8()]
    elif kind == "scrollToRow":
        message.update(section=r.uvar(), row=r.uvar(), position=["none", "top", "middle", "bottom"][r.u8()],
                       animated=bool(r.u8()))
    elif kind == "resize":
        message.update(width=number(r), height=number(r))
    elif kind == "reducedMotion":
        message["on"] = bool(r.u8())
    elif kind == "rest":
        message["offset"] = number(r)
    elif kind == "rowOrder":
        order, previous = [], -1
        for _ in range(r.uvar()):
            rows = []
            for _ in range(r.uvar()):
                previous = previous + 1 + r.svar()
                rows.append(previous)
            order.append(rows)
        message["order"] = order
    else:
        message.update(x=number(r), y=number(r))
    return message
