"""Verify an Open Badges 3.0 credential: its proof, its dates, its recipient, its status.

A credential is JSON with an eddsa-rdfc-2022 Data Integrity proof, or a compact VC-JWT
signed with Ed25519 (EdDSA). The issuer's key comes from the issuer itself: a did:key
holds it, a did:web publishes it in its DID document, and a JWT's `kid` names a DID URL
of the issuer or a JSON Web Key Set on the issuer's own https origin. A key a document
carries with it (a JWT's `jwk` header) proves nothing and is not used.

The recipient is one of the engineer's addresses, named by the subject as an
`IdentityObject` of type `emailAddress` (hashed `sha256$<hex of sha256(address + salt)>`,
or the address itself), or as the subject's id `mailto:<address>`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import warnings
from collections.abc import Collection, Mapping
from typing import Any
from urllib.parse import urlsplit

from joserfc import jws
from joserfc.errors import JoseError
from joserfc.jwk import OKPKey
from joserfc.util import urlsafe_b64decode

from tracker import jsontext
from tracker.badges.services import proofs, status_lists
from tracker.badges.services.verified import BadgeRefused, Fetch, VerifiedBadge
from tracker.i18n import N_, day, msg

CREDENTIAL_TYPES = frozenset({"OpenBadgeCredential", "AchievementCredential"})
# OB 3.0 names EdDSA; RFC 9864 renames it Ed25519. Both mean Ed25519 here.
JWT_ALGORITHMS = ("EdDSA", "Ed25519")
IDENTITY_TYPE = "emailAddress"
HASH_PREFIX = "sha256$"

Json = dict[str, Any]


def verify_ob3(
    document: str, emails: Collection[str], today: dt.date, fetch: Fetch
) -> VerifiedBadge:
    """Return what an Open Badges 3.0 credential says, or refuse it with the reason."""
    credential = signed_credential(document.strip().encode(), fetch)
    types = credential.get("type")
    if (
        not isinstance(types, list)
        or "VerifiableCredential" not in types
        or not CREDENTIAL_TYPES & set(types)
    ):
        raise BadgeRefused(N_("the document is not an OpenBadgeCredential"))
    credential_id = _text(credential.get("id"), N_("the badge has no id"))
    issuer_id, issuer_name = _issuer(credential)
    subject = credential.get("credentialSubject")
    if not isinstance(subject, dict):
        raise BadgeRefused(N_("the badge has no credentialSubject"))
    achievement = subject.get("achievement")
    if not isinstance(achievement, dict):
        raise BadgeRefused(N_("the badge names no achievement"))
    recipient = match_recipient(subject, emails)
    issued_on = _date(credential.get("validFrom") or credential.get("issuanceDate"), "validFrom")
    if issued_on is None:
        raise BadgeRefused(N_("the badge has no validFrom"))
    expires_on = _date(
        credential.get("validUntil") or credential.get("expirationDate"), "validUntil"
    )
    if issued_on > today:
        raise BadgeRefused(msg("the badge is valid only from %(day)s", day=day(issued_on)))
    if expires_on is not None and expires_on < today:
        raise BadgeRefused(msg("the badge expired on %(day)s", day=day(expires_on)), "expired")
    status_lists.check_status(credential, fetch, lambda body: _status_list(body, issuer_id, fetch))
    return VerifiedBadge(
        format="ob3",
        assertion_id=credential_id,
        badge_class_id=_text(achievement.get("id"), N_("the badge's achievement has no id")),
        badge_name=_text(achievement.get("name"), N_("the badge's achievement has no name")),
        issuer_id=issuer_id,
        issuer_name=issuer_name,
        recipient=recipient,
        issued_on=issued_on,
        expires_on=expires_on,
        document=document,
    )


def signed_credential(body: bytes, fetch: Fetch) -> Json:
    """Return a credential (JSON with a proof, or a VC-JWT) whose signature is its issuer's."""
    if body.startswith(b"{"):
        credential = proofs.parse_json(body)
        issuer_id, _ = _issuer(credential)
        proof = proofs.the_proof(credential)
        method: str = proof["verificationMethod"]
        proofs.check_proof(credential, _did_key(issuer_id, method, fetch))
        return credential
    return _jwt_credential(body, fetch)


def _status_list(body: bytes, issuer_id: str, fetch: Fetch) -> Json:
    listed = signed_credential(body.strip(), fetch)
    if _issuer(listed)[0] != issuer_id:
        raise BadgeRefused(N_("the status list is not the badge issuer's"))
    return listed


def _did_key(issuer_id: str, method_id: str, fetch: Fetch) -> proofs.Ed25519PublicKey:
    did = method_id.split("#", 1)[0]
    if did != issuer_id:
        raise BadgeRefused(
            msg(
                "the badge is signed by %(key)s, not by its issuer %(issuer)s",
                key=method_id,
                issuer=issuer_id,
            )
        )
    if did.startswith("did:key:"):
        return proofs.assertion_key(proofs.did_key_document(did), did, method_id)
    if did.startswith("did:web:"):
        return proofs.assertion_key(
            proofs.parse_json(fetch(proofs.did_web_url(did))), did, method_id
        )
    raise BadgeRefused(
        msg("the issuer %(issuer)s is neither a did:web nor a did:key", issuer=issuer_id)
    )


def _jwt_credential(token: bytes, fetch: Fetch) -> Json:
    parts = token.split(b".")
    if len(parts) != 3:
        raise BadgeRefused(N_("the badge is neither JSON nor a compact VC-JWT"))
    try:
        header = jsontext.loads(urlsafe_b64decode(parts[0]))
        claims = jsontext.loads(urlsafe_b64decode(parts[1]))
    except ValueError as error:
        raise BadgeRefused(N_("the badge's JWT is not base64url JSON")) from error
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise BadgeRefused(N_("the badge's JWT is not base64url JSON"))
    alg = header.get("alg")
    if alg not in JWT_ALGORITHMS:
        raise BadgeRefused(
            msg("the badge's JWT is signed with %(alg)s, not Ed25519 (EdDSA)", alg=alg)
        )
    # A VC-JWT of VC 1.1 (as OB 3.0 first wrote it) carries the credential in `vc`;
    # one of VC 2.0 (VC-JOSE) is the credential itself.
    credential = claims.get("vc", claims)
    if not isinstance(credential, dict):
        raise BadgeRefused(N_("the badge's JWT holds no credential"))
    issuer_id, _ = _issuer(credential)
    if "iss" in claims and claims["iss"] != issuer_id:
        raise BadgeRefused(N_("the badge's JWT iss is not its issuer"))
    kid = _text(header.get("kid"), N_("the badge's JWT names no key (kid)"))
    key = _jwt_key(issuer_id, kid, fetch)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            jws.deserialize_compact(token, OKPKey.import_key(proofs.jwk(key)), algorithms=[alg])
    except JoseError as error:
        raise BadgeRefused(N_("the badge's signature does not match the issuer's key")) from error
    if "vc" in claims:
        credential = _with_claims(credential, claims)
    return credential


def _with_claims(credential: Json, claims: Mapping[str, Any]) -> Json:
    # The JWT's registered claims stand for the credential's own fields (VC 1.1 JWT).
    merged = dict(credential)
    if "jti" in claims:
        merged.setdefault("id", claims["jti"])
    for claim, field in (("nbf", "validFrom"), ("exp", "validUntil")):
        if isinstance(claims.get(claim), int | float) and field not in merged:
            merged[field] = dt.datetime.fromtimestamp(claims[claim], dt.UTC).isoformat()
    return merged


def _jwt_key(issuer_id: str, kid: str, fetch: Fetch) -> proofs.Ed25519PublicKey:
    if kid.startswith("#"):
        kid = issuer_id + kid
    if kid.startswith("did:"):
        return _did_key(issuer_id, kid, fetch)
    url, _, fragment = kid.partition("#")
    issuer, where = urlsplit(issuer_id), urlsplit(url)
    secure = where.scheme == "https" or (
        where.scheme == "http" and proofs.loopback(where.hostname or "")
    )
    if not secure or (issuer.scheme, issuer.netloc) != (where.scheme, where.netloc):
        raise BadgeRefused(
            msg(
                "the badge's key %(kid)s is not published by its issuer %(issuer)s",
                kid=kid,
                issuer=issuer_id,
            )
        )
    published = proofs.parse_json(fetch(url))
    keys = published.get("keys")
    if keys is None:
        return proofs.from_jwk(published)
    for candidate in keys if isinstance(keys, list) else []:
        if isinstance(candidate, dict) and candidate.get("kid") in (kid, fragment):
            return proofs.from_jwk(candidate)
    raise BadgeRefused(msg("the issuer publishes no key %(kid)s", kid=kid))


def match_recipient(subject: Mapping[str, Any], emails: Collection[str]) -> str:
    """Return which of the addresses the credential's subject is, lowercased."""
    addresses = sorted({email.strip().lower() for email in emails if email.strip()})
    subject_id = subject.get("id")
    if isinstance(subject_id, str) and subject_id.lower().startswith("mailto:"):
        named = subject_id[len("mailto:") :].strip().lower()
        if named in addresses:
            return named
    identifiers = subject.get("identifier")
    for identity in identifiers if isinstance(identifiers, list) else [identifiers]:
        if not isinstance(identity, dict) or identity.get("identityType") != IDENTITY_TYPE:
            continue
        value = identity.get("identityHash")
        if not isinstance(value, str):
            continue
        for address in addresses:
            if _identifies(value, identity.get("hashed"), identity.get("salt"), address):
                return address
    raise BadgeRefused(N_("the badge was issued to none of your e-mail addresses"), "recipient")


def _identifies(value: str, hashed: object, salt: object, address: str) -> bool:
    if hashed is not True:
        return value.strip().lower() == address
    if not value.lower().startswith(HASH_PREFIX):
        return False
    salted = address + (salt if isinstance(salt, str) else "")
    digest = hashlib.sha256(salted.encode()).hexdigest()
    return hmac.compare_digest(value[len(HASH_PREFIX) :].lower(), digest)


def _issuer(credential: Mapping[str, Any]) -> tuple[str, str]:
    issuer = credential.get("issuer")
    if isinstance(issuer, str):
        return issuer, issuer
    if isinstance(issuer, dict) and isinstance(issuer.get("id"), str):
        name = issuer.get("name")
        return issuer["id"], name if isinstance(name, str) and name else issuer["id"]
    raise BadgeRefused(N_("the badge names no issuer"))


def _text(value: object, refusal: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BadgeRefused(refusal)
    return value


def _date(value: object, field: str) -> dt.date | None:
    if value is None:
        return None
    try:
        moment = dt.datetime.fromisoformat(str(value))
    except ValueError as error:
        raise BadgeRefused(
            msg("the badge's %(field)s is not a date and time", field=field)
        ) from error
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC).date()
