"""Bitstring status lists (W3C BitstringStatusList): encoding, reading a credential's status."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Mapping
from typing import Any

from joserfc.util import urlsafe_b64decode, urlsafe_b64encode

from tracker.badges.services.verified import BadgeRefused, Fetch
from tracker.i18n import N_, msg

ENTRY_TYPE = "BitstringStatusListEntry"
LIST_CREDENTIAL_TYPE = "BitstringStatusListCredential"
LIST_TYPE = "BitstringStatusList"
# The specification's smallest list, 16 KiB, so that one entry does not single a holder out.
MIN_LIST_BITS = 131_072
# Purposes that make a credential no longer valid while their bit is set.
REFUSING_PURPOSES = {
    "revocation": N_("the issuer has revoked the badge"),
    "suspension": N_("the issuer has suspended the badge"),
}
# A gzip bomb is refused before it fills memory: lists are at most 16 MiB of bits.
MAX_LIST_BYTES = 16 * 1024 * 1024

Json = dict[str, Any]
# Check a fetched status list credential's proof (and issuer) and return it parsed.
CheckSigned = Callable[[bytes], Json]


def empty_list(bits: int = MIN_LIST_BITS) -> bytearray:
    """Return a list of `bits` zero bits."""
    return bytearray((max(bits, MIN_LIST_BITS) + 7) // 8)


def set_bit(bits: bytearray, index: int) -> None:
    """Set bit `index` (0 is the first byte's most significant bit)."""
    bits[index // 8] |= 0x80 >> (index % 8)


def bit(bits: bytes, index: int) -> bool:
    """Return whether bit `index` is set."""
    return bool(bits[index // 8] & (0x80 >> (index % 8)))


def encode(bits: bytes | bytearray) -> str:
    """Return a list as `encodedList`: multibase base64url (u...) of its GZIP."""
    return "u" + urlsafe_b64encode(gzip.compress(bytes(bits), mtime=0)).decode()


def decode(encoded: object) -> bytes:
    """Return the bits of an `encodedList`."""
    try:
        if not isinstance(encoded, str) or not encoded.startswith("u"):
            raise ValueError(encoded)
        compressed = urlsafe_b64decode(encoded[1:].encode())
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        bits = inflater.decompress(compressed, MAX_LIST_BYTES)
        if inflater.unconsumed_tail:
            raise ValueError("too long")
        return bits
    except (ValueError, zlib.error) as error:
        raise BadgeRefused(N_("the issuer's status list is not a GZIP bitstring")) from error


def _entries(credential: Mapping[str, Any]) -> list[object]:
    status = credential.get("credentialStatus")
    if status is None:
        return []
    return status if isinstance(status, list) else [status]


def check_status(credential: Mapping[str, Any], fetch: Fetch, check_signed: CheckSigned) -> None:
    """Refuse a credential whose revocation or suspension bit is set in its status list."""
    for entry in _entries(credential):
        if not isinstance(entry, dict) or entry.get("type") != ENTRY_TYPE:
            kind = entry.get("type") if isinstance(entry, dict) else None
            raise BadgeRefused(
                msg("the badge's status of type %(type)s cannot be checked", type=kind)
            )
        purpose = entry.get("statusPurpose")
        if purpose not in REFUSING_PURPOSES:
            continue
        try:
            index = int(str(entry.get("statusListIndex")))
            if index < 0:
                raise ValueError(index)
        except ValueError as error:
            raise BadgeRefused(N_("the badge's statusListIndex is not a whole number")) from error
        url = entry.get("statusListCredential")
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            raise BadgeRefused(N_("the badge's statusListCredential is not a URL"))
        listed = check_signed(fetch(url))
        if listed.get("id") not in (None, url):
            raise BadgeRefused(N_("the issuer's status list credential is not the one named"))
        types = listed.get("type")
        subject = listed.get("credentialSubject")
        if (
            not isinstance(types, list)
            or LIST_CREDENTIAL_TYPE not in types
            or not isinstance(subject, dict)
            or subject.get("type") != LIST_TYPE
        ):
            raise BadgeRefused(
                N_("the issuer's status list is not a BitstringStatusListCredential")
            )
        if subject.get("statusPurpose") != purpose:
            raise BadgeRefused(N_("the issuer's status list is for another purpose"))
        bits = decode(subject.get("encodedList"))
        if index >= len(bits) * 8:
            raise BadgeRefused(N_("the badge's statusListIndex is past the end of the status list"))
        if bit(bits, index):
            raise BadgeRefused(REFUSING_PURPOSES[purpose], "revoked")
