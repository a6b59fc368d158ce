"""Fetching is safe: http(s) only, private hosts refused unless allowed, limits, redirects."""

from __future__ import annotations

import datetime as dt
import ipaddress
import ssl
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.badges.conftest import PathServer
from tracker.badges.rules import MAX_FETCH_BYTES
from tracker.badges.services.fetching import Gone, fetch_url
from tracker.badges.services.verified import BadgeRefused

ALLOWED = frozenset({"127.0.0.1"})


def refusal(url: str, allow=ALLOWED) -> BadgeRefused:
    with pytest.raises(BadgeRefused) as caught:
        fetch_url(url, allow)
    return caught.value


def test_an_allowed_host_is_fetched_and_nothing_of_ours_is_sent(served: PathServer) -> None:
    url = served.serve("/doc", b"hello")
    assert fetch_url(url, ALLOWED) == b"hello"
    (seen,) = served.seen
    assert "cookie" not in seen.headers and "authorization" not in seen.headers


def test_a_loopback_host_not_listed_is_refused_before_any_request(served: PathServer) -> None:
    served.serve("/doc", b"hello")
    port = served.base.rsplit(":", 1)[1]
    assert refusal(f"http://127.0.0.2:{port}/doc").kind == "unsafe"
    assert refusal(served.url("/doc"), allow=frozenset()).kind == "unsafe"
    assert served.seen == []


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.1/a",
        "http://192.168.1.1/a",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/a",
        "http://[::ffff:127.0.0.1]/a",
        "http://0.0.0.0/a",
        "file:///etc/passwd",
        "ftp://example.org/a",
        "http://user:secret@127.0.0.1/a",
        "http:///nohost",
    ],
)
def test_unsafe_urls_are_refused(url: str) -> None:
    assert refusal(url).kind == "unsafe"


def test_each_redirect_hop_is_checked(served: PathServer) -> None:
    port = served.base.rsplit(":", 1)[1]
    served.serve("/hop", status=302, headers={"Location": f"http://127.0.0.2:{port}/doc"})
    assert refusal(served.url("/hop")).kind == "unsafe"
    served.serve("/doc", b"arrived")
    served.serve("/ok", status=301, headers={"Location": "/doc", "Set-Cookie": "a=b"})
    assert fetch_url(served.url("/ok"), ALLOWED) == b"arrived"
    assert "cookie" not in served.seen[-1].headers


def test_a_redirect_loop_stops(served: PathServer) -> None:
    served.serve("/loop", status=302, headers={"Location": "/loop"})
    assert "redirects more than" in refusal(served.url("/loop")).reason


def test_a_body_over_the_limit_is_refused(served: PathServer) -> None:
    served.serve("/big", b"x" * (MAX_FETCH_BYTES + 1))
    assert "larger than" in refusal(served.url("/big")).reason
    served.serve("/fits", b"x" * MAX_FETCH_BYTES)
    assert len(fetch_url(served.url("/fits"), ALLOWED)) == MAX_FETCH_BYTES


def test_statuses(served: PathServer) -> None:
    served.serve("/gone", status=410)
    with pytest.raises(Gone):
        fetch_url(served.url("/gone"), ALLOWED)
    assert refusal(served.url("/missing")).kind == "unreachable"


def test_a_server_that_does_not_answer_in_time_is_unreachable() -> None:
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/slow"
        with pytest.raises(BadgeRefused) as caught:
            fetch_url(url, ALLOWED, deadline_seconds=0.5)
    assert caught.value.kind == "unreachable"


def test_a_name_that_resolves_elsewhere_to_connect_is_refused(
    served: PathServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding: badges.example answers a public address to the check, then the
    server's own loopback address to the connection. The connection goes to the
    address it checks, and that one is private: refused, and nothing is fetched."""
    import socket

    served.serve("/doc", b"inside")
    port = int(served.base.rsplit(":", 1)[1])
    real = socket.getaddrinfo
    answers = iter(["93.184.215.14", "127.0.0.1"])

    def rebinding(host, *args, **kwargs):
        if host != "badges.example":
            return real(host, *args, **kwargs)
        address = next(answers, "127.0.0.1")
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    refused = refusal(f"http://badges.example:{port}/doc", allow=frozenset())
    assert refused.kind == "unsafe"
    assert "badges.example is a private or local address" in refused.reason
    assert served.seen == []


def _self_signed(directory: Path) -> tuple[Path, Path]:
    """Write a certificate for 127.0.0.1 and its key; return their paths."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=1))
        .not_valid_after(now + dt.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def test_https_goes_through_the_checked_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TLS is spoken over the socket opened to the checked address, and the certificate
    is verified for the URL's host."""
    cert, key = _self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    # A server of its own: the other tests' speaks plain HTTP.
    tls = PathServer()
    tls.httpd.socket = context.wrap_socket(tls.httpd.socket, server_side=True)
    tls.thread.start()
    try:
        url = tls.serve("/doc", b"over tls").replace("http://", "https://")
        assert refusal(url).kind == "unreachable"  # a certificate nobody trusts
        # Trusted as the system's store is told to (an operator's own CA, say).
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        assert fetch_url(url, ALLOWED) == b"over tls"
        assert refusal(url, allow=frozenset()).kind == "unsafe"
    finally:
        tls.httpd.shutdown()
        tls.httpd.server_close()
