"""Read what a baked badge image carries: a PNG's iTXt chunk or an SVG's openbadges element.

The standard library does it, with limits: the image's size is bounded by the
caller, a compressed chunk inflates to at most MAX_DOCUMENT_BYTES, and an SVG
with a document type (where entity expansion hides) is refused before parsing.
"""

from __future__ import annotations

import struct
import zlib
from typing import NamedTuple
from xml.etree import ElementTree

from tracker.badges.rules import (
    MAX_DOCUMENT_BYTES,
    MAX_IMAGE_BYTES,
    PNG_KEYWORD_OB2,
    PNG_KEYWORD_OB3,
    SVG_ELEMENT_OB2,
    SVG_ELEMENT_OB3,
    SVG_NAMESPACE,
)
from tracker.badges.services.verified import BadgeFormat, BadgeRefused
from tracker.i18n import N_, msg

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
KEYWORDS: dict[bytes, BadgeFormat] = {PNG_KEYWORD_OB2: "ob2", PNG_KEYWORD_OB3: "ob3"}
ELEMENTS: dict[str, BadgeFormat] = {
    f"{{{SVG_NAMESPACE}}}{SVG_ELEMENT_OB2}": "ob2",
    f"{{{SVG_NAMESPACE}}}{SVG_ELEMENT_OB3}": "ob3",
}


class Baked(NamedTuple):
    """What an image carries: the format its keyword or element names, and the text."""

    format: BadgeFormat
    payload: str


def _inflate(data: bytes) -> bytes:
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, MAX_DOCUMENT_BYTES + 1)
    except zlib.error:
        raise BadgeRefused(N_("the image's badge data is damaged")) from None
    if len(out) > MAX_DOCUMENT_BYTES or inflater.unconsumed_tail:
        raise BadgeRefused(
            msg("the image's badge data is larger than %(most)s bytes", most=MAX_DOCUMENT_BYTES)
        )
    return out


def _text_chunk(kind: bytes, data: bytes) -> tuple[bytes, bytes] | None:
    """Return (keyword, text) of a tEXt or iTXt chunk, or None for another kind."""
    keyword, _, rest = data.partition(b"\x00")
    if kind == b"tEXt":
        return keyword, rest.decode("latin-1").encode()
    if kind == b"iTXt":
        if len(rest) < 2:
            raise BadgeRefused(N_("the image's badge data is damaged"))
        compressed, _method, rest = rest[0], rest[1], rest[2:]
        _language, _, rest = rest.partition(b"\x00")
        _translated, _, text = rest.partition(b"\x00")
        return keyword, _inflate(text) if compressed else text
    return None


def unbake_png(image: bytes) -> Baked:
    """Return the badge of a baked PNG (its first openbadges or openbadgecredential chunk)."""
    position = len(PNG_SIGNATURE)
    while position + 12 <= len(image):
        length, kind = struct.unpack(">I4s", image[position : position + 8])
        end = position + 8 + length
        if end + 4 > len(image):
            break
        data = image[position + 8 : end]
        (crc,) = struct.unpack(">I", image[end : end + 4])
        if zlib.crc32(kind + data) != crc:
            raise BadgeRefused(N_("the PNG image is damaged (a chunk's checksum is wrong)"))
        found = _text_chunk(kind, data)
        if found is not None and found[0] in KEYWORDS:
            try:
                return Baked(KEYWORDS[found[0]], found[1].decode("utf-8"))
            except UnicodeDecodeError:
                raise BadgeRefused(N_("the image's badge data is not UTF-8 text")) from None
        if kind == b"IEND":
            break
        position = end + 4
    raise BadgeRefused(N_("the PNG image carries no badge"))


def unbake_svg(image: bytes) -> Baked:
    """Return the badge of a baked SVG: its openbadges element's content, else `verify`."""
    if b"<!DOCTYPE" in image.upper() or b"<!ENTITY" in image.upper():
        raise BadgeRefused(N_("SVG images with a document type are not read"))
    try:
        root = ElementTree.fromstring(image)
    except (ElementTree.ParseError, LookupError):
        # LookupError: the XML declaration names an encoding Python does not know.
        raise BadgeRefused(N_("the SVG image is not valid XML")) from None
    for element in root.iter():
        if element.tag in ELEMENTS:
            payload = "".join(element.itertext()).strip() or element.get("verify", "").strip()
            if payload:
                return Baked(ELEMENTS[element.tag], payload)
    raise BadgeRefused(N_("the SVG image carries no badge"))


def unbake(image: bytes) -> Baked:
    """Return the badge a baked PNG or SVG image carries; refused for anything else."""
    if len(image) > MAX_IMAGE_BYTES:
        raise BadgeRefused(msg("the image is larger than %(most)s bytes", most=MAX_IMAGE_BYTES))
    if image.startswith(PNG_SIGNATURE):
        return unbake_png(image)
    if b"<svg" in image[:4096]:
        return unbake_svg(image)
    raise BadgeRefused(N_("the image is neither a PNG nor an SVG"))
