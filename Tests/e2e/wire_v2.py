"""A decoder for protocol version 2's binary server messages, written from docs/protocol.md
("Version 2") alone, for the e2e tests. It turns each message into the dict a version-1 client
gets from JSON.parse, so the two versions can be compared field by field.

    decoder = WireV2Decoder()
    message = decoder.decode(raw_bytes)   # {"type": "frame", ...}; texts messages update the table
"""

from __future__ import annotations

import base64
import struct

PHASES = ["idle", "tracking", "decelerating", "bouncing", "animating"]
TYPES = {1: "snapshot", 2: "frame", 3: "texts", 4: "rowMoved", 5: "presence", 6: "refused", 7: "error", 8: "resumed",
         9: "applied", 10: "beat", 11: "asked", 12: "granted", 13: "denied", 14: "expired", 15: "follow",
         16: "batch", 17: "hashedBeat", 18: "held", 19: "pong"}
APPLIED_CAUSES = ["input", "leave", "unavailable", "takeBack", "state"]
APPLIED_KINDS = [None, "pointerDown", "pointerMove", "pointerUp", "pointerCancel", "wheel", "key", "scrollToRow",
                 "longPressBegan", "longPressMove", "longPressEnd", "longPressCancel", "resize", "reducedMotion",
                 "rowOrder", "rest"]
MAX_SAFE = 2**53 - 1


class WireV2Error(ValueError):
    pass


class Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def u8(self) -> int:
        if self.pos >= len(self.data):
            raise WireV2Error(f"message ends early at byte {self.pos}")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def uvar(self) -> int:
        value, shift = 0, 0
        for _ in range(8):
            b = self.u8()
            value |= (b & 0x7F) << shift
            if b < 0x80:
                if value > MAX_SAFE:
                    raise WireV2Error("varint beyond 2^53 - 1")
                return value
            shift += 7
        raise WireV2Error("varint longer than 8 bytes")

    def svar(self) -> int:
        z = self.uvar()
        return z // 2 if z % 2 == 0 else -(z + 1) // 2

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise WireV2Error("bytes run past the end")
        taken = self.data[self.pos:self.pos + n]
        self.pos += n
        return taken

    def str(self) -> str:
        return self.take(self.uvar()).decode("utf-8")

    def f64(self) -> float:
        if self.pos + 8 > len(self.data):
            raise WireV2Error("message ends early")
        (x,) = struct.unpack_from("<d", self.data, self.pos)
        self.pos += 8
        return x

    def end(self):
        if self.pos != len(self.data):
            raise WireV2Error(f"{len(self.data) - self.pos} bytes after the end of the message")


def pt(units: int) -> float:
    return units / 100 + 0.0


def frac(units: int) -> float:
    return units / 1000 + 0.0


class WireV2Decoder:
    """Keeps the room's texts (rows by id, section titles, panel labels) as the doc says."""

    def __init__(self):
        self.rows: dict[int, dict] = {}
        self.sections: dict[int, str] = {}
        self.labels: dict[int, tuple[str, str]] = {}

    def decode(self, data: bytes) -> dict:
        r = Reader(bytes(data))
        kind = TYPES.get(r.u8())
        if kind is None:
            raise WireV2Error("unknown message type")
        if kind == "snapshot":
            message = self._snapshot(r)
        elif kind == "frame":
            message = self._frame(r)
        elif kind == "texts":
            rows, sections, labels = self._texts(r)
            self._apply(rows, sections, labels)
            message = {"type": "texts", "rows": rows, "sections": sections, "labels": labels}
        elif kind == "rowMoved":
            message = {"type": "rowMoved", "rowId": r.svar(), "from": {"s": r.uvar(), "r": r.uvar()},
                       "to": {"s": r.uvar(), "r": r.uvar()}, "by": r.str(), "version": r.uvar()}
        elif kind == "presence":
            viewers = r.uvar()
            flags = r.u8()
            message = {"type": "presence", "viewers": viewers, "driver": r.str() if flags & 1 else None,
                       "locked": bool(flags & 2)}
            # Sharing (docs/protocol.md): only while someone explores or holds a grant, as in version 1.
            if flags & 4:
                message["exploring"] = r.uvar()
            if flags & 8:
                message["granted"] = [r.str() for _ in range(r.uvar())]
        elif kind == "refused":
            flags = r.u8()
            message = {"type": "refused", "input": r.uvar() if flags & 1 else None, "code": r.str(), "reason": r.str()}
        elif kind == "resumed":
            # The texts held so far stay: a resume sends only those missed.
            message = {"type": "resumed", "room": r.str(), "viewer": r.str(), "viewers": r.uvar()}
            flags = r.u8()
            if flags & ~0x07:
                raise WireV2Error(f"reserved bits set in flags {flags}")
            message["driver"] = r.str() if flags & 1 else None
            message["locked"] = bool(flags & 2)
            key = r.str() if flags & 4 else None
            message.update(life=r.uvar(), moves=r.uvar(), **{"from": r.uvar()}, seq=r.uvar())
            if key is not None:
                message["driverKey"] = key
        elif kind == "applied":
            message = self._applied(r)
        elif kind == "beat":
            message = {"type": "beat", "t": r.f64(), "complete": r.f64()}
        elif kind == "batch":
            message = self._batch(r)
        elif kind == "hashedBeat":
            t = self._num(r)
            message = {"type": "beat", "t": t, "complete": self._num(r, t),
                       "hash": r.take(8)[::-1].hex()}
        elif kind == "pong":
            message = {"type": "pong", "id": r.uvar()}
        elif kind == "held":
            input_id = r.uvar()
            t = self._num(r)
            message = {"type": "held", "input": input_id, "t": t, "at": self._num(r, t)}
        elif kind == "asked":
            message = {"type": "asked", "viewer": r.str(), "expiresIn": r.uvar()}
        elif kind in ("granted", "denied"):
            message = {"type": kind, "viewer": r.str(), "by": r.str()}
            if kind == "granted" and r.u8() & 1:
                message["grant"] = r.str()
        elif kind == "expired":
            message = {"type": "expired", "viewer": r.str()}
        elif kind == "follow":
            message = {"type": "follow", "by": r.str()}
        else:
            message = {"type": "error", "message": r.str()}
        r.end()
        return message

    @staticmethod
    def _applied(r: "Reader") -> dict:
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
        return WireV2Decoder._change(r, r.u8(), message, lambda r: r.f64())

    @staticmethod
    def _num_part(r: "Reader"):
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

    @staticmethod
    def _num(r: "Reader", base=None) -> float:
        """A `num`; a count is a Δ from `base` when there is one."""
        x, is_count = WireV2Decoder._num_part(r)
        return base + x if base is not None and is_count else x

    @staticmethod
    def _batch(r: "Reader") -> dict:
        """A `batch`: its front (changes, count, the last `t`, complete), then entries with a head
        byte, times as Δs from the next entry's, `num` coordinates."""
        message = {"type": "batch", "changes": r.uvar(), "complete": None, "applied": []}
        count = r.uvar()
        last = WireV2Decoder._num(r) if count else None
        message["complete"] = WireV2Decoder._num(r, last)
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
                times.append(WireV2Decoder._num_part(r))
            if same:
                entry.update(viewer=previous["viewer"], id=previous["id"] + 1)
            else:
                entry["viewer"] = r.str() or None
                entry["id"] = r.uvar()
            entry["cause"] = APPLIED_CAUSES[(head >> 4) & 7]
            WireV2Decoder._change(r, head & 15, entry, WireV2Decoder._num)
            message["applied"].append(entry)
            previous = entry
        for i in reversed(range(len(times))):
            x, is_count = times[i]
            message["applied"][i]["t"] = message["applied"][i + 1]["t"] + x if is_count else x
        return message

    @staticmethod
    def _change(r: "Reader", code: int, message: dict, number) -> dict:
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

    def _apply(self, rows, sections, labels):
        for row in rows:
            self.rows[row["id"]] = row
        for s in sections:
            self.sections[s["s"]] = s["title"]
        for label in labels:
            self.labels[label["label"]] = (label["title"], label["detail"])

    def _texts(self, r: Reader):
        rows, previous = [], -1
        for _ in range(r.uvar()):
            row_id = previous + 1 + r.svar()
            previous = row_id
            rows.append({"id": row_id, "h": r.svar(), "title": r.str(), "subtitle": r.str(), "detail": r.str()})
        sections = [{"s": r.uvar(), "title": r.str()} for _ in range(r.uvar())]
        labels = [{"label": r.uvar(), "title": r.str(), "detail": r.str()} for _ in range(r.uvar())]
        return rows, sections, labels

    def _snapshot(self, r: Reader) -> dict:
        message = {"type": "snapshot", "protocol": r.uvar(), "room": r.str(), "viewer": r.str(), "viewers": r.uvar()}
        flags = r.u8()
        message["driver"] = r.str() if flags & 1 else None
        key = r.str() if flags & 4 else None
        resume_point = {"life": r.uvar(), "moves": r.uvar()} if flags & 16 else None
        replica = self._replica(r) if flags & 32 else None
        message["sceneName"] = r.str()
        message["locked"] = bool(flags & 2)
        insets = {"top": r.f64(), "left": r.f64(), "bottom": r.f64(), "right": r.f64()}
        header_height = r.f64()
        background = {"image": r.str(), "height": r.f64()} if flags & 8 else None
        layers = [{"image": r.str(), "width": r.f64(), "height": r.f64(), "restingY": r.f64(),
                   "pullFactor": r.f64(), "scrollFactor": r.f64()} for _ in range(r.uvar())]
        sections, previous = [], -1
        for _ in range(r.uvar()):
            title, height = r.str(), r.f64()
            ids = []
            for _ in range(r.uvar()):
                previous = previous + 1 + r.svar()
                ids.append(previous)
            sections.append({"title": title, "headerHeight": height, "rows": ids})
        self.rows, self.sections, self.labels = {}, {}, {}
        self._apply(*self._texts(r))
        frame = self._frame(r)
        message["scene"] = {"viewport": dict(frame["viewport"]), "insets": insets, "headerHeight": header_height,
                            "background": background, "layers": layers,
                            "rowCount": sum(len(s["rows"]) for s in sections), "sections": sections}
        message["frame"] = frame
        if key is not None:
            message["driverKey"] = key
        if resume_point is not None:
            message.update(resume_point)
        if replica is not None:
            message["replica"] = replica
        return message

    @staticmethod
    def _replica(r: "Reader") -> dict:
        """A snapshot's `replica` (the inputs stream), its state in base64 as version 1 has it."""
        replica = {"engine": r.uvar(), "t": r.f64(), "changes": r.uvar()}
        flags = r.u8()
        if flags & ~1:
            raise WireV2Error(f"reserved bits set in replica flags {flags}")
        replica["input"] = {"viewer": r.str(), "id": r.uvar()} if flags & 1 else None
        replica["state"] = base64.b64encode(r.take(r.uvar())).decode()
        return replica

    def _row_texts(self, row_id: int) -> dict:
        if row_id not in self.rows:
            raise WireV2Error(f"row {row_id} has no texts")
        return self.rows[row_id]

    def _frame(self, r: Reader) -> dict:
        f = {"type": "frame", "seq": r.uvar(), "t": pt(r.svar()), "sentAt": pt(r.svar())}
        flags = r.u8()
        phase = r.u8()
        if flags & 0xC0:
            raise WireV2Error("reserved flags")
        f["input"] = {"viewer": r.str(), "id": r.uvar()} if flags & 2 else None
        f["phase"] = PHASES[phase] if phase < len(PHASES) else "idle"  # unlisted phases read as idle
        f["animating"] = bool(flags & 1)
        f["viewport"] = {"width": pt(r.svar()), "height": pt(r.svar())}
        f["offset"] = pt(r.svar())
        f["contentHeight"] = pt(r.svar())
        rows = []
        s, row, row_id, y, h = 0, -1, -1, 0, 0
        for _ in range(r.uvar()):
            code = r.u8()
            path = code & 3
            if code & 0xE0 or path == 3:
                raise WireV2Error("bad row code")
            if path == 0:
                row += 1
            elif path == 1:
                s, row = s + 1, 0
            else:
                s, row = r.uvar(), r.uvar()
            row_id = row_id + 1 + (r.svar() if code & 4 else 0)
            y = y + h + (r.svar() if code & 8 else 0)
            texts = self._row_texts(row_id)
            h = r.svar() if code & 16 else texts["h"]
            rows.append({"s": s, "r": row, "id": row_id, "y": pt(y), "h": pt(h),
                         "title": texts["title"], "subtitle": texts["subtitle"], "detail": texts["detail"]})
        f["rows"] = rows
        headers = []
        for _ in range(r.uvar()):
            section = r.uvar()
            headers.append({"s": section, "y": pt(r.svar()), "h": pt(r.svar()), "title": self.sections[section]})
        f["headers"] = headers
        f["background"] = {"offset": pt(r.svar())}
        layers, layer_y = [], 0
        for _ in range(r.uvar()):
            index = r.uvar()
            layer_y += r.svar()
            layers.append({"i": index, "y": pt(layer_y)})
        f["layers"] = layers
        ix, iy = r.svar(), r.svar()
        f["indicator"] = {"x": pt(ix), "y": pt(iy), "w": pt(r.svar()), "h": pt(r.svar()), "alpha": frac(r.svar())}
        f["panel"] = None
        if flags & 4:
            x, y_ = ix + r.svar(), iy + r.svar()
            panel = {"x": pt(x), "y": pt(y_), "w": pt(r.svar()), "h": pt(r.svar()), "alpha": frac(r.svar())}
            title, detail = self.labels[r.uvar()]
            panel["title"], panel["detail"] = title, detail
            f["panel"] = panel
        f["lifted"] = None
        if flags & 8:
            ls, lr, lid = r.uvar(), r.uvar(), r.svar()
            texts = self._row_texts(lid)
            f["lifted"] = {"s": ls, "r": lr, "id": lid, "y": pt(r.svar()), "h": pt(r.svar()), "title": texts["title"],
                           "subtitle": texts["subtitle"], "detail": texts["detail"], "lift": frac(r.svar()),
                           "settling": bool(flags & 32)}
        f["placeholder"] = None
        if flags & 16:
            f["placeholder"] = {"s": r.uvar(), "r": r.uvar(), "y": pt(r.svar()), "h": pt(r.svar())}
        return f
