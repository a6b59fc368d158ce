"""Where the tracker may reach out to: hosts with public addresses only, unless allowed.

A URL a person gives (a badge to fetch, a webhook endpoint) must not make the
server reach inside its own network: loopback, private, link-local (the cloud
metadata service), shared or reserved ranges. The operator's allow list lets
named hosts or addresses through. Each feature words its own refusals.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import sys
import urllib.request
from collections.abc import Callable, Collection
from functools import cache
from typing import Any

# What getaddrinfo answers: (family, type, proto, canonname, sockaddr).
AddressInfo = tuple[Any, ...]


class EgressRefused(OSError):
    """A host the tracker must not connect to; `host` names it."""

    def __init__(self, host: str, reason: str) -> None:
        super().__init__(f"{host} {reason}")
        self.host = host


class HostNotFound(EgressRefused):
    """The host's name resolves to no address."""

    def __init__(self, host: str) -> None:
        super().__init__(host, "cannot be found")


class PrivateHost(EgressRefused):
    """The host is, or resolves to, an address that is not public and not allowed."""

    def __init__(self, host: str) -> None:
        super().__init__(host, "is a private or local address")


def is_public(address: str) -> bool:
    """Return whether an IP address is global unicast (an IPv4-mapped one judged as IPv4)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def resolve(host: str, port: int, allow_hosts: Collection[str]) -> list[AddressInfo]:
    """Return the TCP addresses of `host`; refuse it unless each is public or allowed.

    A host is private when any address it resolves to is, so a name that answers
    one public and one private address cannot be used to reach the private one.
    """
    host = host.strip("[]").lower()
    try:
        found = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        raise HostNotFound(host) from None
    if not found:
        raise HostNotFound(host)
    if host not in allow_hosts:
        for info in found:
            address = str(info[4][0])
            if address not in allow_hosts and not is_public(address):
                raise PrivateHost(host)
    return found


def check_host(host: str, port: int, allow_hosts: Collection[str]) -> None:
    """Refuse a host that is not found or not public; an allowed one is not even resolved."""
    if host.strip("[]").lower() in allow_hosts:
        return
    resolve(host, port, allow_hosts)


def connect(
    address: tuple[str, int],
    allow_hosts: Collection[str],
    timeout: object = None,
    source_address: tuple[str, int] | None = None,
) -> socket.socket:
    """Open a TCP connection to (host, port), only to an address `resolve` let through.

    Connecting to the very addresses checked leaves no room for the name to
    resolve elsewhere in between (DNS rebinding).
    """
    host, port = address
    error: OSError | None = None
    for family, kind, proto, _name, sockaddr in resolve(host, port, allow_hosts):
        sock = socket.socket(family, kind, proto)
        try:
            # http.client passes socket's "global default" sentinel when no timeout is set.
            if isinstance(timeout, int | float):
                sock.settimeout(timeout)
            if source_address:
                sock.bind(source_address)
            sock.connect(sockaddr)
        except OSError as exc:
            sock.close()
            error = exc
            continue
        return sock
    assert error is not None  # resolve() answers at least one address
    raise error


# --- HTTP over checked connections --------------------------------------------------


class CheckedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection that opens only to an address `resolve` lets through.

    http.client's own connect resolves the name again, which a name answering a
    public address to the check and a private one to the connection (DNS
    rebinding) would use to reach inside. No proxy, so no tunnel.
    """

    allow_hosts: Collection[str] = frozenset()

    def connect(self) -> None:
        sys.audit("http.client.connect", self, self.host, self.port)
        # source_address is HTTPConnection's (its constructor's argument); typeshed omits it.
        source: tuple[str, int] | None = getattr(self, "source_address", None)
        self.sock = connect((self.host, self.port), self.allow_hosts, self.timeout, source)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class CheckedHTTPSConnection(http.client.HTTPSConnection, CheckedHTTPConnection):
    """HTTPS over a checked connection: HTTPSConnection wraps what CheckedHTTPConnection opens."""


def _checked(
    kind: type[CheckedHTTPConnection], allow_hosts: frozenset[str]
) -> Callable[..., CheckedHTTPConnection]:
    def make(*args: Any, **kwargs: Any) -> CheckedHTTPConnection:
        connection = kind(*args, **kwargs)
        connection.allow_hosts = allow_hosts
        return connection

    return make


class _CheckedHandler(urllib.request.HTTPHandler, urllib.request.HTTPSHandler):
    """http and https, each over a connection to the addresses checked (replaces both defaults)."""

    def __init__(self, allow_hosts: frozenset[str]) -> None:
        super().__init__()
        self.allow_hosts = allow_hosts

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_checked(CheckedHTTPConnection, self.allow_hosts), req)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_checked(CheckedHTTPSConnection, self.allow_hosts), req)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Answer a redirect as an HTTPError: a caller that follows one checks its hop first."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


@cache
def opener(allow_hosts: frozenset[str]) -> urllib.request.OpenerDirector:
    """Return an opener of http(s) only, connecting only where egress lets it.

    No proxy, redirect or cookie; no file, ftp or data URL (build_opener would
    add their handlers). Every answer that is not 2xx, redirects included,
    raises urllib's HTTPError, which is a response too (status, headers, body).
    """
    director = urllib.request.OpenerDirector()
    for handler in (
        urllib.request.ProxyHandler({}),
        urllib.request.UnknownHandler(),
        urllib.request.HTTPDefaultErrorHandler(),
        _NoRedirects(),
        _CheckedHandler(allow_hosts),
        urllib.request.HTTPErrorProcessor(),
    ):
        director.add_handler(handler)
    return director
