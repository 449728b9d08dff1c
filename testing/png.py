"""A small PNG reader (stdlib only), for the report's screenshot test: the size of a screenshot and its
pixels, enough to tell a rendered page from a blank one. 8-bit RGB and RGBA, not interlaced: what
Chromium writes."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {2: 3, 6: 4}  # colour type -> bytes per pixel (RGB, RGBA)


@dataclass(frozen=True)
class Image:
    width: int
    height: int
    channels: int
    rows: tuple[bytes, ...]  # each row's pixels, unfiltered

    def count(self, *tests: Callable[[int, int, int], bool]) -> tuple[int, ...]:
        """For each of `tests`, how many pixels `test(r, g, b)` holds for (all in one pass)."""
        found = [0] * len(tests)
        for row in self.rows:
            for start in range(0, len(row), self.channels):
                r, g, b = row[start], row[start + 1], row[start + 2]
                for n, test in enumerate(tests):
                    found[n] += test(r, g, b)
        return tuple(found)


def read(path: Path) -> Image:
    data = path.read_bytes()
    if not data.startswith(_SIGNATURE):
        raise ValueError(f"{path} is not a PNG")
    chunks = _chunks(data[len(_SIGNATURE) :])
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"][0])
    if depth != 8 or colour not in _CHANNELS or interlace:
        raise ValueError(
            f"{path}: unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})"
        )
    channels = _CHANNELS[colour]
    raw = zlib.decompress(b"".join(chunks[b"IDAT"]))
    return Image(width, height, channels, _unfilter(raw, width * channels, height, channels))


def _chunks(data: bytes) -> dict[bytes, list[bytes]]:
    chunks: dict[bytes, list[bytes]] = {}
    offset = 0
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        chunks.setdefault(kind, []).append(data[offset + 8 : offset + 8 + length])
        offset += 12 + length
    return chunks


def _unfilter(raw: bytes, stride: int, height: int, bpp: int) -> tuple[bytes, ...]:
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        if kind in (0, 2):  # None and Up, the filters of most rows: whole rows at once
            line = bytearray(line if kind == 0 else _add_bytes(line, previous))
            rows.append(bytes(line))
            previous = line
            continue
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            corner = previous[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + _predict(kind, left, up, corner)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return tuple(rows)


def _add_bytes(a: bytes | bytearray, b: bytes | bytearray) -> bytes:
    """Each byte of `a` plus the byte of `b` beside it, modulo 256, in one big-integer sum: the low seven
    bits of each byte add without reaching the next byte, and the top bit is their sum's parity."""
    low = int.from_bytes(b"\x7f" * len(a), "big")
    x, y = int.from_bytes(a, "big"), int.from_bytes(b, "big")
    total = ((x & low) + (y & low)) ^ ((x ^ y) & ~low & ((1 << (8 * len(a))) - 1))
    return total.to_bytes(len(a), "big")


def _predict(kind: int, left: int, up: int, corner: int) -> int:
    if kind == 0:
        return 0
    if kind == 1:
        return left
    if kind == 2:
        return up
    if kind == 3:
        return (left + up) // 2
    if kind == 4:
        p = left + up - corner
        pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
        return left if pa <= pb and pa <= pc else up if pb <= pc else corner
    raise ValueError(f"unknown PNG filter {kind}")
