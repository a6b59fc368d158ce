"""Shared helpers for the badges tests: images to bake, baked by an independent baker."""

from __future__ import annotations

import io

import png
from openbadges_bakery import bake


def plain_png() -> bytes:
    """Return a 2x2 greyscale PNG with nothing baked in."""
    out = io.BytesIO()
    png.Writer(2, 2, greyscale=True).write(out, [[0, 255], [255, 0]])
    return out.getvalue()


def baked(image: bytes, content: str) -> bytes:
    """Return `image` with `content` baked in by openbadges-bakery."""
    with bake(io.BytesIO(image), content) as result:
        return result.read()
