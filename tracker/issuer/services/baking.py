"""Baked badges: the credential inside a PNG (iTXt `openbadgecredential`) or an SVG."""

from __future__ import annotations

import struct
import zlib
from functools import cache
from xml.sax.saxutils import escape

from tracker.issuer.rules import PNG_KEYWORD

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SIZE = 256
# The badge's colours (RGB): a green disc on white, a darker ring.
DISC, RING, PAPER = (118, 185, 0), (58, 92, 0), (255, 255, 255)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _pixel(x: int, y: int) -> tuple[int, int, int]:
    centre = (SIZE - 1) / 2
    distance = ((x - centre) ** 2 + (y - centre) ** 2) ** 0.5
    if distance <= SIZE * 0.40:
        return DISC
    if distance <= SIZE * 0.47:
        return RING
    return PAPER


@cache
def badge_image() -> bytes:
    """Return the plain badge image (a PNG drawn here, nothing baked in)."""
    rows = b"".join(
        b"\x00" + bytes(channel for x in range(SIZE) for channel in _pixel(x, y))
        for y in range(SIZE)
    )
    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 2, 0, 0, 0)
    return (
        PNG_SIGNATURE
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows, 9))
        + _chunk(b"IEND", b"")
    )


def bake_png(image: bytes, credential: str) -> bytes:
    """Return the PNG with the credential in an iTXt chunk just before IEND."""
    if not image.startswith(PNG_SIGNATURE) or not image.endswith(_chunk(b"IEND", b"")):
        raise ValueError("not a PNG ending in IEND")
    # keyword, NUL, no compression (flag 0, method 0), empty language and translation.
    text = PNG_KEYWORD.encode() + b"\x00\x00\x00" + b"\x00" + b"\x00" + credential.encode()
    end = len(_chunk(b"IEND", b""))
    return image[:-end] + _chunk(b"iTXt", text) + image[-end:]


def unbake_png(image: bytes) -> str | None:
    """Return the credential baked in a PNG, if any."""
    offset = len(PNG_SIGNATURE)
    while offset + 8 <= len(image):
        (length,) = struct.unpack(">I", image[offset : offset + 4])
        kind = image[offset + 4 : offset + 8]
        data = image[offset + 8 : offset + 8 + length]
        if kind == b"iTXt":
            keyword, _, rest = data.partition(b"\x00")
            if keyword.decode("latin-1") == PNG_KEYWORD and rest[:2] == b"\x00\x00":
                _language, _, rest = rest[2:].partition(b"\x00")
                _translated, _, text = rest.partition(b"\x00")
                return text.decode()
        offset += 12 + length
    return None


def bake_svg(credential: str, title: str) -> str:
    """Return an SVG badge holding the credential in <openbadges:credential>."""
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:openbadges="https://purl.imsglobal.org/ob/v3p0"'
        f' width="{SIZE}" height="{SIZE}" viewBox="0 0 {SIZE} {SIZE}" role="img">'
        f"<title>{escape(title)}</title>"
        "<openbadges:credential><![CDATA["
        + credential.replace("]]>", "]]]]><![CDATA[>")
        + "]]></openbadges:credential>"
        f'<circle cx="{SIZE / 2}" cy="{SIZE / 2}" r="{SIZE * 0.47}" fill="rgb{RING}"/>'
        f'<circle cx="{SIZE / 2}" cy="{SIZE / 2}" r="{SIZE * 0.40}" fill="rgb{DISC}"/>'
        "</svg>"
    )
