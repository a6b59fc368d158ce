"""Baked images made by an independent baker (openbadges-bakery) are read back."""

from __future__ import annotations

import json
import struct
import zlib

import pytest

from tests.badges.conftest import TODAY, Issuer
from tests.badges.helpers import baked, plain_png
from tracker.badges.rules import MAX_DOCUMENT_BYTES
from tracker.badges.services.baking import unbake
from tracker.badges.services.fetching import make_fetch
from tracker.badges.services.verification import verify_image
from tracker.badges.services.verified import BadgeRefused

# The baker validates the assertion's URL with an rfc3986 function that now warns.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Please use rfc3986.validators.Validator:DeprecationWarning"
)
EMAIL = "ada@example.com"
SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    '<circle cx="5" cy="5" r="4"/></svg>'
)


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def test_a_baked_png_gives_its_assertion_and_verifies(issuer: Issuer) -> None:
    assertion = json.dumps(issuer.assertion("/a/1", EMAIL))
    image = baked(plain_png(), assertion)
    assert unbake(image) == ("ob2", assertion)
    badge = verify_image(image, [EMAIL], TODAY, make_fetch({"127.0.0.1"}))
    assert badge.assertion_id == issuer.server.url("/a/1")


def test_a_baked_svg_gives_its_assertion_and_verifies(issuer: Issuer) -> None:
    assertion = json.dumps(issuer.assertion("/a/1", EMAIL))
    image = baked(SVG.encode(), assertion)
    assert unbake(image) == ("ob2", assertion)
    badge = verify_image(image, [EMAIL], TODAY, make_fetch({"127.0.0.1"}))
    assert badge.issuer_name == "Example Academy"


def test_an_svg_with_only_a_verify_url_is_read() -> None:
    image = (
        b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:openbadges="http://openbadges.org">'
        b'<openbadges:assertion verify="https://example.org/a/1"/></svg>'
    )
    assert unbake(image) == ("ob2", "https://example.org/a/1")


def test_the_open_badges_3_keyword_and_element_name_the_format() -> None:
    png_image = plain_png()
    itxt = chunk(b"iTXt", b"openbadgecredential\x00\x00\x00\x00\x00eyJ.eyJ.sig")
    image = png_image[:33] + itxt + png_image[33:]
    assert unbake(image) == ("ob3", "eyJ.eyJ.sig")
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:openbadges="http://openbadges.org">'
        b"<openbadges:credential><![CDATA[eyJ.eyJ.sig]]></openbadges:credential></svg>"
    )
    assert unbake(svg) == ("ob3", "eyJ.eyJ.sig")


def test_a_compressed_chunk_is_inflated_within_the_limit() -> None:
    image = plain_png()
    text = b'{"id": "https://example.org/a/1"}'
    itxt = chunk(b"iTXt", b"openbadges\x00\x01\x00\x00\x00" + zlib.compress(text))
    assert unbake(image[:33] + itxt + image[33:]).payload == text.decode()
    bomb = chunk(
        b"iTXt", b"openbadges\x00\x01\x00\x00\x00" + zlib.compress(b" " * (MAX_DOCUMENT_BYTES + 10))
    )
    with pytest.raises(BadgeRefused, match="larger than"):
        unbake(image[:33] + bomb + image[33:])


@pytest.mark.parametrize(
    "image, reason",
    [
        (b"GIF89a", "neither a PNG nor an SVG"),
        (b"", "neither a PNG nor an SVG"),
        (None, "carries no badge"),
        (SVG.encode(), "carries no badge"),
        (b'<!DOCTYPE svg [<!ENTITY a "b">]><svg>&a;</svg>', "document type"),
        (b"<svg><unclosed></svg>", "not valid XML"),
        (b'<?xml version="1.0" encoding="no-such"?><svg/>', "not valid XML"),
    ],
)
def test_images_without_a_badge_are_refused(image: bytes | None, reason: str) -> None:
    with pytest.raises(BadgeRefused, match=reason):
        unbake(plain_png() if image is None else image)


def test_a_damaged_chunk_is_refused() -> None:
    image = bytearray(baked(plain_png(), '{"id": "https://example.org/a/1"}'))
    image[45] ^= 0xFF
    with pytest.raises(BadgeRefused, match="damaged"):
        unbake(bytes(image))
