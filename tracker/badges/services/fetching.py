"""Fetch a badge's documents safely: http(s) only, public addresses, bounded size and time.

Every hop of a redirect is checked again, since a public URL may redirect to an
address inside the network. Nothing of the tracker's goes along: no cookies, no
credentials, no proxy or netrc settings from the environment.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Collection
from functools import cache
from urllib.parse import urljoin, urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import NewConnectionError

from tracker.badges.rules import (
    FETCH_ACCEPT,
    FETCH_DEADLINE_SECONDS,
    FETCH_SCHEMES,
    FETCH_TIMEOUT_SECONDS,
    MAX_FETCH_BYTES,
    MAX_REDIRECTS,
)
from tracker.badges.services.verified import BadgeRefused, Fetch
from tracker.egress import EgressRefused, HostNotFound, PrivateHost, check_host, connect
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


@cache
def _pinned_adapter_classes(
    allow_hosts: frozenset[str],
) -> tuple[type[HTTPConnectionPool], type[HTTPSConnectionPool]]:
    """Return connection pools whose connections open only to addresses egress let through.

    The URL's host was checked (check_url), but urllib3 would resolve it again
    to connect: a name that answers a public address to the check and a
    private one to the connection (DNS rebinding) would reach inside. These
    connections connect to the very addresses they check.
    """

    def new_conn(self: HTTPConnection) -> socket.socket:
        try:
            return connect(
                (self._dns_host, self.port), allow_hosts, self.timeout, self.source_address
            )
        except OSError as exc:
            raise NewConnectionError(self, f"Failed to establish a new connection: {exc}") from exc

    http = type("PinnedHTTPConnection", (HTTPConnection,), {"_new_conn": new_conn})
    https = type("PinnedHTTPSConnection", (HTTPSConnection,), {"_new_conn": new_conn})
    return (
        type("PinnedHTTPPool", (HTTPConnectionPool,), {"ConnectionCls": http}),
        type("PinnedHTTPSPool", (HTTPSConnectionPool,), {"ConnectionCls": https}),
    )


class _PinnedAdapter(HTTPAdapter):
    """requests' adapter, its connections opened to checked addresses only."""

    def __init__(self, allow_hosts: frozenset[str]) -> None:
        self._pools = _pinned_adapter_classes(allow_hosts)
        super().__init__(max_retries=0)

    def init_poolmanager(self, *args: object, **kwargs: object) -> None:
        super().init_poolmanager(*args, **kwargs)  # type: ignore[arg-type]
        http, https = self._pools
        self.poolmanager.pool_classes_by_scheme = {"http": http, "https": https}


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
    with requests.Session() as session:
        session.trust_env = False  # no proxies, netrc or CA settings of the environment
        for scheme in ("http://", "https://"):
            session.mount(scheme, _PinnedAdapter(hosts))
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            check_url(current, hosts)
            # Each wait is bounded by what is left of the deadline too.
            wait = max(0.01, min(FETCH_TIMEOUT_SECONDS, deadline - time.monotonic()))
            try:
                response = session.get(
                    current,
                    headers={"Accept": FETCH_ACCEPT},
                    allow_redirects=False,
                    stream=True,
                    timeout=(wait, wait),
                )
            except requests.RequestException as exc:
                refused = _refused_host(exc)
                if isinstance(refused, PrivateHost):
                    # Public when checked, private when connected to: refused as private.
                    raise _private(refused.host) from None
                raise BadgeRefused(
                    msg("%(url)s could not be fetched", url=current), "unreachable"
                ) from None
            with response:
                session.cookies.clear()  # a cookie set by one hop is never sent to the next
                if response.status_code in REDIRECTS and "location" in response.headers:
                    current = urljoin(current, response.headers["location"])
                    continue
                if response.status_code == 410:
                    raise Gone(current)
                if response.status_code != 200:
                    raise BadgeRefused(
                        msg(
                            "%(url)s answered HTTP %(status)s",
                            url=current,
                            status=response.status_code,
                        ),
                        "unreachable",
                    )
                return _read(response, current, max_bytes, deadline)
    raise BadgeRefused(
        msg("%(url)s redirects more than %(most)s times", url=url, most=MAX_REDIRECTS), "unsafe"
    )


def _read(response: requests.Response, url: str, max_bytes: int, deadline: float) -> bytes:
    """Return the body, refusing one over `max_bytes` or still coming at the deadline."""
    too_large = BadgeRefused(
        msg("%(url)s is larger than %(most)s bytes", url=url, most=max_bytes), "unsafe"
    )
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > max_bytes:
        raise too_large
    body = bytearray()
    try:
        for chunk in response.iter_content(CHUNK_BYTES):
            body += chunk
            if len(body) > max_bytes:
                raise too_large
            if time.monotonic() > deadline:
                raise BadgeRefused(msg("%(url)s took too long", url=url), "unreachable")
    except requests.RequestException:
        raise BadgeRefused(msg("%(url)s could not be read", url=url), "unreachable") from None
    return bytes(body)


def make_fetch(allow_hosts: Collection[str]) -> Fetch:
    """Return the Fetch that verifiers use, letting `allow_hosts` through."""
    hosts = frozenset(h.lower() for h in allow_hosts)
    return lambda url: fetch_url(url, hosts)
