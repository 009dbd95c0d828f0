"""Tiny writers for the three scene image formats (docs/scenes.md), standard library only, so the
example scenes' images (scripts/make_example_scenes.py) and the e2e tests' bad images are made
here rather than by a tool the machine may not have:

  png(width, height, pixel)              RGBA PNG, zlib-compressed, each row filtered "Up"
  jpeg(width, height, block)             baseline colour JPEG whose 8×8 blocks are flat (DC only)
  webp_mask(width, height, rgb, opaque)  lossless WebP (VP8L) of one colour, 1 bit of alpha per pixel

`pixel(x, y)` gives (r, g, b, a); `block(bx, by)` the (r, g, b) of the block at column bx, row by;
`opaque(x, y)` whether the pixel is drawn.
"""

from __future__ import annotations

import struct
import zlib


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(width: int, height: int, pixel) -> bytes:
    raw = bytearray()
    previous = bytes(width * 4)
    for y in range(height):
        row = bytes(c for x in range(width) for c in pixel(x, y))
        # Filter 2 ("Up"): bands and gradients become runs of small numbers that deflate well.
        raw.append(2)
        raw.extend((a - b) & 0xFF for a, b in zip(row, previous))
        previous = row
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + _chunk(b"IEND", b""))


class _Bits:
    """JPEG's entropy-coded bits, most significant first, with 0xFF bytes stuffed."""

    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def put(self, value: int, length: int):
        for i in range(length - 1, -1, -1):
            self.acc = (self.acc << 1) | ((value >> i) & 1)
            self.n += 1
            if self.n == 8:
                self.out.append(self.acc)
                if self.acc == 0xFF:
                    self.out.append(0)
                self.acc = self.n = 0

    def flush(self) -> bytes:
        if self.n:
            self.put((1 << (8 - self.n)) - 1, 8 - self.n)   # pad with 1 bits
        return bytes(self.out)


# ITU-T T.81 Annex K's luminance DC table: codes per length 1…16, then the categories 0…11.
_DC_COUNTS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
_DC_VALUES = list(range(12))


def _dc_codes() -> dict[int, tuple[int, int]]:
    codes, code, k = {}, 0, 0
    for length, count in enumerate(_DC_COUNTS, start=1):
        for _ in range(count):
            codes[_DC_VALUES[k]] = (code, length)
            code += 1
            k += 1
        code <<= 1
    return codes


def _segment(marker: int, body: bytes) -> bytes:
    return struct.pack(">BBH", 0xFF, marker, len(body) + 2) + body


def jpeg(width: int, height: int, block) -> bytes:
    # One quantisation table with 8 for DC: a flat block's DC coefficient is 8 × (level − 128).
    dqt = bytes([0, 8] + [1] * 63)
    sof = struct.pack(">BHHB", 8, height, width, 3) + bytes([1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0])
    # DC: Annex K's table; AC: one code, "0", for end of block (every block is flat).
    dht = bytes([0x00] + _DC_COUNTS + _DC_VALUES) + bytes([0x10, 1] + [0] * 15 + [0x00])
    sos = bytes([3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0])
    codes = _dc_codes()
    bits = _Bits()
    previous = [0, 0, 0]
    for by in range((height + 7) // 8):
        for bx in range((width + 7) // 8):
            r, g, b = block(bx, by)
            ycc = (0.299 * r + 0.587 * g + 0.114 * b,
                   128 - 0.168736 * r - 0.331264 * g + 0.5 * b,
                   128 + 0.5 * r - 0.418688 * g - 0.081312 * b)
            for c, level in enumerate(ycc):
                value = max(-127, min(127, round(level) - 128))
                diff = value - previous[c]
                previous[c] = value
                size = abs(diff).bit_length()
                code, length = codes[size]
                bits.put(code, length)
                if size:
                    bits.put(diff if diff > 0 else diff + (1 << size) - 1, size)
                bits.put(0, 1)   # end of block
    return (b"\xff\xd8" + _segment(0xDB, dqt) + _segment(0xC0, sof) + _segment(0xC4, dht)
            + _segment(0xDA, sos) + bits.flush() + b"\xff\xd9")


class _LSBBits:
    """VP8L's bits, least significant first."""

    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def put(self, value: int, length: int):
        self.acc |= value << self.n
        self.n += length
        while self.n >= 8:
            self.out.append(self.acc & 0xFF)
            self.acc >>= 8
            self.n -= 8

    def flush(self) -> bytes:
        if self.n:
            self.out.append(self.acc & 0xFF)
        return bytes(self.out)


def _simple_code(bits: _LSBBits, symbols: list[int]):
    """A VP8L "simple" prefix code of one or two 8-bit symbols."""
    bits.put(1, 1)
    bits.put(len(symbols) - 1, 1)
    bits.put(1, 1)                  # the first symbol takes 8 bits
    for symbol in symbols:
        bits.put(symbol, 8)


def webp_mask(width: int, height: int, rgb: tuple[int, int, int], opaque) -> bytes:
    bits = _LSBBits()
    bits.put(0x2F, 8)
    bits.put(width - 1, 14)
    bits.put(height - 1, 14)
    bits.put(1, 1)                  # alpha is used
    bits.put(0, 3)                  # version 0
    bits.put(0, 1)                  # no transform
    bits.put(0, 1)                  # no colour cache
    bits.put(0, 1)                  # no meta prefix codes
    r, g, b = rgb
    _simple_code(bits, [g])
    _simple_code(bits, [r])
    _simple_code(bits, [b])
    _simple_code(bits, [0, 255])    # alpha: canonical codes, so 0 is bit 0 and 255 bit 1
    bits.put(1, 1); bits.put(0, 1); bits.put(0, 1); bits.put(0, 1)   # distance: one 1-bit symbol, 0
    for y in range(height):
        for x in range(width):
            bits.put(1 if opaque(x, y) else 0, 1)
    data = bits.flush()
    chunk = b"VP8L" + struct.pack("<I", len(data)) + data + (b"\0" if len(data) % 2 else b"")
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk
