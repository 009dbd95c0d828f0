"""Resuming from the client's side (docs/protocol.md, "Resuming"), for the e2e tests: what a client
keeps of its room (life, last seq, move count, row order) and the join that resumes from it."""

from __future__ import annotations

from server_helpers import Viewer


class Position:
    """Where a client is in its room, kept from the messages it received, as the page keeps it."""

    def __init__(self):
        self.life = None
        self.seq = None
        self.moves = 0
        self.order: list[list[int]] = []

    def follow(self, viewer: Viewer, start: int = 0) -> "Position":
        for _, obj in viewer.received[start:]:
            self.apply(obj)
        return self

    def apply(self, message: dict):
        kind = message.get("type")
        if kind == "snapshot":
            self.life = message.get("life")
            self.moves = message.get("moves", 0)
            self.seq = message["frame"]["seq"]
            self.order = [list(section["rows"]) for section in message["scene"]["sections"]]
        elif kind == "frame":
            self.seq = max(self.seq or 0, message["seq"])
        elif kind == "rowMoved":
            row = self.order[message["from"]["s"]].pop(message["from"]["r"])
            assert row == message["rowId"], "a move applied to the order the client holds"
            self.order[message["to"]["s"]].insert(message["to"]["r"], row)
            self.moves = message["version"]

    def resume(self) -> dict:
        return {"life": self.life, "seq": self.seq, "moves": self.moves}


def answer(viewer: Viewer) -> list[tuple[str | bytes, dict]]:
    """The messages of a resumed connection up to and including the latest frame it was owed
    (`resumed.seq`): what resuming cost, before the live stream."""
    messages = viewer.received
    resumed = messages[0][1]
    assert resumed["type"] == "resumed", [obj.get("type") for _, obj in messages]
    if resumed["seq"] == resumed["from"]:
        return messages[:1 + sum(1 for _, o in messages[1:] if o.get("type") in ("rowMoved", "texts"))]
    end = next(i for i, (_, o) in enumerate(messages) if o.get("type") == "frame" and o["seq"] == resumed["seq"])
    return messages[:end + 1]


def size(messages) -> int:
    return sum(len(raw.encode() if isinstance(raw, str) else raw) for raw, _ in messages)


def without_texts(messages) -> list[str]:
    return [obj.get("type") for _, obj in messages if obj.get("type") != "texts"]
