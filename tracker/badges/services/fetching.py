"""Fetch a badge's documents safely: http(s) only, public addresses, bounded size and time.

Every hop of a redirect is checked again, since a public URL may redirect to an
address inside the network, and each connection goes to the very addresses
checked (tracker.egress.opener). Nothing of the tracker's goes along: no
cookies, no credentials, no proxy settings from the environment.
"""

from __future__ import annotations

import http.client
import time
import urllib.error
import urllib.request
from collections.abc import Collection
from urllib.parse import urljoin, urlsplit

from tracker.badges.rules import (
    FETCH_ACCEPT,
    FETCH_DEADLINE_SECONDS,
    FETCH_SCHEMES,
    FETCH_TIMEOUT_SECONDS,
    FETCH_USER_AGENT,
    MAX_FETCH_BYTES,
    MAX_REDIRECTS,
)
from tracker.badges.services.verified import BadgeRefused, Fetch
from tracker.egress import EgressRefused, HostNotFound, PrivateHost, check_host, opener
from tracker.i18n import msg

REDIRECTS = frozenset({301, 302, 303, 307, 308})
CHUNK_BYTES = 64 * 1024


class Gone(BadgeRefused):
    """The server answered 410 Gone: for a hosted assertion, its issuer revoked it."""

    def __init__(self, url: str) -> None:
        super().__init__(msg("%(url)s is gone (HTTP 410)", url=url), "unreachable")
        self.url = url


def _private(host: str) -> BadgeRefused:
    return BadgeRefused(
        msg("%(host)s is a private or local address; it is not fetched", host=host), "unsafe"
    )


def check_url(url: str, allow_hosts: Collection[str]) -> None:
    """Refuse ("unsafe") a URL that is not http(s), carries credentials or names a private host.

    A host is private when any address it resolves to is private, loopback,
    link-local or otherwise not global; `allow_hosts` lets named ones through.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise BadgeRefused(msg("%(url)s is not a valid URL", url=url), "unsafe") from None
    if parts.scheme.lower() not in FETCH_SCHEMES:
        raise BadgeRefused(msg("%(url)s is not an http or https URL", url=url), "unsafe")
    host = (parts.hostname or "").lower()
    if not host:
        raise BadgeRefused(msg("%(url)s names no host", url=url), "unsafe")
    if parts.username is not None or parts.password is not None:
        raise BadgeRefused(msg("%(url)s carries a user name or password", url=url), "unsafe")
    try:
        check_host(host, port or 443, allow_hosts)
    except HostNotFound:
        raise BadgeRefused(msg("%(host)s cannot be found", host=host), "unreachable") from None
    except PrivateHost:
        raise _private(host) from None


def _refused_host(exc: BaseException) -> EgressRefused | None:
    """Return the egress refusal that caused a fetch's error, if one did."""
    seen: set[int] = set()
    pending: list[BaseException] = [exc]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, EgressRefused):
            return current
        pending += [e for e in (current.__cause__, current.__context__) if e is not None]
        pending += [a for a in current.args if isinstance(a, BaseException)]
        reason = getattr(current, "reason", None)
        if isinstance(reason, BaseException):
            pending.append(reason)
    return None


def fetch_url(
    url: str,
    allow_hosts: Collection[str] = frozenset(),
    max_bytes: int = MAX_FETCH_BYTES,
    deadline_seconds: float = FETCH_DEADLINE_SECONDS,
) -> bytes:
    """GET `url` and return its body; redirects followed by hand, each hop checked."""
    deadline = time.monotonic() + deadline_seconds
    hosts = frozenset(allow_hosts)
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        check_url(current, hosts)
        # Each wait is bounded by what is left of the deadline too.
        wait = max(0.01, min(FETCH_TIMEOUT_SECONDS, deadline - time.monotonic()))
        request = urllib.request.Request(
            current, headers={"Accept": FETCH_ACCEPT, "User-Agent": FETCH_USER_AGENT}
        )
        response: http.client.HTTPResponse | urllib.error.HTTPError
        try:
            response = opener(hosts).open(request, timeout=wait)
        except urllib.error.HTTPError as answer:
            response = answer  # not 2xx (a redirect too): an answer all the same
        except (OSError, ValueError, http.client.HTTPException) as exc:
            refused = _refused_host(exc)
            if isinstance(refused, PrivateHost):
                # Public when checked, private when connected to: refused as private.
                raise _private(refused.host) from None
            raise BadgeRefused(
                msg("%(url)s could not be fetched", url=current), "unreachable"
            ) from None
        with response:
            status = response.status
            if status in REDIRECTS and "location" in response.headers:
                current = urljoin(current, response.headers["location"])
                continue
            if status == 410:
                raise Gone(current)
            if status != 200:
                raise BadgeRefused(
                    msg("%(url)s answered HTTP %(status)s", url=current, status=status),
                    "unreachable",
                )
            return _read(response, current, max_bytes, deadline)
    raise BadgeRefused(
        msg("%(url)s redirects more than %(most)s times", url=url, most=MAX_REDIRECTS), "unsafe"
    )


def _read(
    response: http.client.HTTPResponse | urllib.error.HTTPError,
    url: str,
    max_bytes: int,
    deadline: float,
) -> bytes:
    """Return the body, refusing one over `max_bytes` or still coming at the deadline."""
    too_large = BadgeRefused(
        msg("%(url)s is larger than %(most)s bytes", url=url, most=max_bytes), "unsafe"
    )
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > max_bytes:
        raise too_large
    body = bytearray()
    try:
        while chunk := response.read(CHUNK_BYTES):
            body += chunk
            if len(body) > max_bytes:
                raise too_large
            if time.monotonic() > deadline:
                raise BadgeRefused(msg("%(url)s took too long", url=url), "unreachable")
    except (OSError, http.client.HTTPException):
        raise BadgeRefused(msg("%(url)s could not be read", url=url), "unreachable") from None
    return bytes(body)


def make_fetch(allow_hosts: Collection[str]) -> Fetch:
    """Return the Fetch that verifiers use, letting `allow_hosts` through."""
    hosts = frozenset(h.lower() for h in allow_hosts)
    return lambda url: fetch_url(url, hosts)
