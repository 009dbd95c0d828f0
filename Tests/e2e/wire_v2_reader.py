"""The byte reader of the suite's version 2 decoder (wire_v2.py): varints, zigzag, strings,
little-endian doubles, points, as docs/protocol.md ("Version 2") writes them."""

from __future__ import annotations

import struct

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
