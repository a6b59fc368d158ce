"""Data Integrity proofs (eddsa-rdfc-2022), Ed25519 multikeys and DID documents."""

from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import base58
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from joserfc.util import urlsafe_b64decode, urlsafe_b64encode
from pyld import jsonld

from tracker import jsontext
from tracker.badges.services.verified import BadgeRefused
from tracker.i18n import N_, msg

PROOF_TYPE = "DataIntegrityProof"
CRYPTOSUITE = "eddsa-rdfc-2022"
PROOF_PURPOSE = "assertionMethod"

# The multicodec prefix of an Ed25519 public key (0xed, as a varint) in a multikey.
ED25519_PUB = b"\xed\x01"
# Keys a DID document may publish an Ed25519 key as.
MULTIBASE_METHODS = frozenset({"Multikey", "Ed25519VerificationKey2020"})
JWK_METHODS = frozenset({"JsonWebKey", "JsonWebKey2020"})

Json = dict[str, Any]


@cache
def _contexts() -> dict[str, Json]:
    folder = resources.files("tracker.badges") / "contexts"
    index: dict[str, str] = json.loads((folder / "index.json").read_text("utf-8"))
    return {url: json.loads((folder / name).read_text("utf-8")) for url, name in index.items()}


def bundled_contexts() -> frozenset[str]:
    """Return the URLs of the JSON-LD contexts the tracker ships and alone reads."""
    return frozenset(_contexts())


def _load(url: str, options: object = None) -> Json:
    # Contexts are never fetched: one fetched at verification time could redefine what
    # the signed terms mean.
    document = _contexts().get(url)
    if document is None:
        raise BadgeRefused(
            msg("the badge uses a JSON-LD context the tracker does not know: %(url)s", url=url)
        )
    return {"contextUrl": None, "documentUrl": url, "document": document}


def canonize(document: Mapping[str, Any]) -> str:
    """Return a JSON-LD document's canonical N-Quads (RDFC-1.0)."""
    try:
        result = jsonld.normalize(
            dict(document),
            {"algorithm": "URDNA2015", "format": "application/n-quads", "documentLoader": _load},
        )
    except BadgeRefused:
        raise
    except jsonld.JsonLdError as error:
        # pyld wraps the loader's refusal, a few causes deep.
        cause: BaseException | None = error
        while cause is not None:
            if isinstance(cause, BadgeRefused):
                raise cause from error
            cause = cause.__cause__ or cause.__context__
        raise BadgeRefused(N_("the badge is not valid JSON-LD")) from error
    return str(result)


def _hash_data(document: Mapping[str, Any], proof: Mapping[str, Any]) -> bytes:
    unsecured = {key: value for key, value in document.items() if key != "proof"}
    config = {key: value for key, value in proof.items() if key != "proofValue"}
    config["@context"] = unsecured.get("@context")
    config_hash = hashlib.sha256(canonize(config).encode()).digest()
    document_hash = hashlib.sha256(canonize(unsecured).encode()).digest()
    return config_hash + document_hash


def stamp(moment: dt.datetime) -> str:
    """Return an XSD dateTimeStamp in UTC (a naive time is UTC, as the database keeps it)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def sign(
    document: Mapping[str, Any],
    key: Ed25519PrivateKey,
    verification_method: str,
    created: dt.datetime,
) -> Json:
    """Return the document with an eddsa-rdfc-2022 Data Integrity proof by `key`."""
    proof: Json = {
        "type": PROOF_TYPE,
        "cryptosuite": CRYPTOSUITE,
        "created": stamp(created),
        "verificationMethod": verification_method,
        "proofPurpose": PROOF_PURPOSE,
    }
    unsecured = {key: value for key, value in document.items() if key != "proof"}
    signature = key.sign(_hash_data(unsecured, proof))
    return {
        **unsecured,
        "proof": {**proof, "proofValue": "z" + base58.b58encode(signature).decode()},
    }


def the_proof(document: Mapping[str, Any]) -> Json:
    """Return the one eddsa-rdfc-2022 proof of a document, checked for shape."""
    proof = document.get("proof")
    if isinstance(proof, list) and len(proof) == 1:
        proof = proof[0]
    if not isinstance(proof, dict):
        raise BadgeRefused(N_("the badge has no proof, or more than one"))
    if proof.get("type") != PROOF_TYPE or proof.get("cryptosuite") != CRYPTOSUITE:
        raise BadgeRefused(
            msg(
                "the badge's proof is not a %(type)s of the %(suite)s cryptosuite",
                type=PROOF_TYPE,
                suite=CRYPTOSUITE,
            )
        )
    if proof.get("proofPurpose") != PROOF_PURPOSE:
        raise BadgeRefused(
            msg("the badge's proof purpose is not %(purpose)s", purpose=PROOF_PURPOSE)
        )
    for field in ("verificationMethod", "proofValue"):
        if not isinstance(proof.get(field), str):
            raise BadgeRefused(msg("the badge's proof has no %(field)s", field=field))
    return proof


def check_proof(document: Mapping[str, Any], key: Ed25519PublicKey) -> None:
    """Check a document's eddsa-rdfc-2022 proof against the issuer's key."""
    proof = the_proof(document)
    value: str = proof["proofValue"]
    try:
        if not value.startswith("z"):
            raise ValueError(value)
        signature = base58.b58decode(value[1:])
    except ValueError as error:
        raise BadgeRefused(N_("the badge's proof value is not base58btc multibase")) from error
    try:
        key.verify(signature, _hash_data(document, proof))
    except InvalidSignature as error:
        raise BadgeRefused(N_("the badge's signature does not match the issuer's key")) from error


def multikey(key: Ed25519PublicKey) -> str:
    """Return an Ed25519 public key as a multibase multikey (z6Mk...)."""
    raw = key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    return "z" + base58.b58encode(ED25519_PUB + raw).decode()


def from_multikey(value: object) -> Ed25519PublicKey:
    """Return the Ed25519 public key of a multibase multikey."""
    try:
        if not isinstance(value, str) or not value.startswith("z"):
            raise ValueError(value)
        raw = base58.b58decode(value[1:])
        if not raw.startswith(ED25519_PUB) or len(raw) != len(ED25519_PUB) + 32:
            raise ValueError(value)
        return Ed25519PublicKey.from_public_bytes(raw[len(ED25519_PUB) :])
    except ValueError as error:
        raise BadgeRefused(N_("the issuer's key is not an Ed25519 multikey")) from error


def jwk(key: Ed25519PublicKey) -> Json:
    """Return an Ed25519 public key as a JWK (OKP)."""
    raw = key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    return {"kty": "OKP", "crv": "Ed25519", "x": urlsafe_b64encode(raw).decode()}


def from_jwk(value: object) -> Ed25519PublicKey:
    """Return the Ed25519 public key of a JWK."""
    try:
        if (
            not isinstance(value, dict)
            or value.get("kty") != "OKP"
            or value.get("crv") != "Ed25519"
        ):
            raise ValueError(value)
        if "d" in value:
            raise ValueError("a published key holds its private part")
        return Ed25519PublicKey.from_public_bytes(urlsafe_b64decode(str(value["x"]).encode()))
    except (ValueError, KeyError) as error:
        raise BadgeRefused(N_("the issuer's key is not an Ed25519 JSON Web Key")) from error


def did_key(key: Ed25519PublicKey) -> str:
    """Return the did:key of an Ed25519 public key."""
    return "did:key:" + multikey(key)


def did_key_document(did: str) -> Json:
    """Return the DID document a did:key stands for (nothing to fetch)."""
    value = did.removeprefix("did:key:")
    from_multikey(value)
    method = {
        "id": f"{did}#{value}",
        "type": "Multikey",
        "controller": did,
        "publicKeyMultibase": value,
    }
    return {"id": did, "verificationMethod": [method], "assertionMethod": [method["id"]]}


def loopback(host: str) -> bool:
    """Return whether a host is this machine (where http stands in for https)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def did_web(base_url: str) -> str:
    """Return the did:web of a site's base URL (its path, if any, becomes the DID's path)."""
    parts = urlsplit(base_url)
    did = "did:web:" + quote(parts.netloc, safe="")
    segments = [quote(unquote(part), safe="") for part in parts.path.split("/") if part]
    return ":".join([did, *segments])


def did_web_url(did: str) -> str:
    """Return where a did:web's document is published.

    https, as did:web says; a DID on this machine (localhost, 127.0.0.1, [::1]) over
    http, as a tracker without TLS serves it. The safe fetch refuses this machine anyway.
    """
    rest = did.removeprefix("did:web:")
    host, *path = rest.split(":")
    netloc = unquote(host)
    if not netloc or "/" in netloc or "@" in netloc:
        raise BadgeRefused(msg("the issuer %(did)s is not a valid did:web", did=did))
    hostname = urlsplit("//" + netloc).hostname or ""
    scheme = "http" if loopback(hostname) else "https"
    folder = "/".join(quote(unquote(part), safe="") for part in path) or ".well-known"
    return f"{scheme}://{netloc}/{folder}/did.json"


def _method_id(did: str, value: object) -> str | None:
    if isinstance(value, dict):
        value = value.get("id")
    if not isinstance(value, str):
        return None
    return did + value if value.startswith("#") else value


def assertion_key(document: Mapping[str, Any], did: str, method_id: str) -> Ed25519PublicKey:
    """Return the Ed25519 key `method_id` of a DID document, if it may assert credentials."""
    if document.get("id") != did:
        raise BadgeRefused(msg("the DID document of %(did)s is for another DID", did=did))
    allowed = {_method_id(did, entry) for entry in _list(document.get("assertionMethod"))}
    if method_id not in allowed:
        raise BadgeRefused(
            msg(
                "the key %(key)s is not one the issuer %(did)s signs credentials with",
                key=method_id,
                did=did,
            )
        )
    methods = [*_list(document.get("verificationMethod")), *_list(document.get("assertionMethod"))]
    for method in methods:
        if isinstance(method, dict) and _method_id(did, method) == method_id:
            if method.get("controller") not in (None, did):
                break
            if method.get("type") in MULTIBASE_METHODS:
                return from_multikey(method.get("publicKeyMultibase"))
            if method.get("type") in JWK_METHODS:
                return from_jwk(method.get("publicKeyJwk"))
            break
    raise BadgeRefused(
        msg("the issuer %(did)s publishes no Ed25519 key %(key)s", did=did, key=method_id)
    )


def _list(value: object) -> list[object]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def parse_json(body: bytes) -> Json:
    """Return a fetched JSON document, refusing what is not a JSON object."""
    try:
        value = jsontext.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise BadgeRefused(N_("the issuer's document is not JSON")) from error
    if not isinstance(value, dict):
        raise BadgeRefused(N_("the issuer's document is not a JSON object"))
    return value
