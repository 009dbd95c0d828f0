"""A decoder for protocol version 2's binary server messages, written from docs/protocol.md
("Version 2") alone, for the e2e tests. It turns each message into the dict a version-1 client
gets from JSON.parse, so the two versions can be compared field by field.

    decoder = WireV2Decoder()
    message = decoder.decode(raw_bytes)   # {"type": "frame", ...}; texts messages update the table
"""

from __future__ import annotations

import base64

from wire_v2_changes import applied, batch, num
from wire_v2_reader import Reader, WireV2Error, frac, pt

__all__ = ["WireV2Decoder", "WireV2Error"]

PHASES = ["idle", "tracking", "decelerating", "bouncing", "animating"]
TYPES = {1: "snapshot", 2: "frame", 3: "texts", 4: "rowMoved", 5: "presence", 6: "refused", 7: "error", 8: "resumed",
         9: "applied", 10: "beat", 11: "asked", 12: "granted", 13: "denied", 14: "expired", 15: "follow",
         16: "batch", 17: "hashedBeat", 18: "held", 19: "pong"}


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
            message = applied(r)
        elif kind == "beat":
            message = {"type": "beat", "t": r.f64(), "complete": r.f64()}
        elif kind == "batch":
            message = batch(r)
        elif kind == "hashedBeat":
            t = num(r)
            message = {"type": "beat", "t": t, "complete": num(r, t),
                       "hash": r.take(8)[::-1].hex()}
        elif kind == "pong":
            message = {"type": "pong", "id": r.uvar()}
        elif kind == "held":
            input_id = r.uvar()
            t = num(r)
            message = {"type": "held", "input": input_id, "t": t, "at": num(r, t)}
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
