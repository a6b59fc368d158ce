"""Where the tracker may reach out to: hosts with public addresses only, unless allowed.

A URL a person gives (a badge to fetch, a webhook endpoint) must not make the
server reach inside its own network: loopback, private, link-local (the cloud
metadata service), shared or reserved ranges. The operator's allow list lets
named hosts or addresses through. Each feature words its own refusals.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Collection
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
