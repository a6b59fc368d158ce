"""Open Badges pages: the holder's own, the public verification page, the issuer's documents."""

from __future__ import annotations

import json
import re

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from flask_login import current_user, login_required
from sqlalchemy import select

from tracker.catalog.models.credentials import Credential
from tracker.clock import today, utcnow
from tracker.errors import ValidationError
from tracker.extensions import db_session, secret_keys
from tracker.issuer.forms import RevokeForm, ShareForm
from tracker.issuer.models import IssuedCredential
from tracker.issuer.rules import ISSUED_KIND, ISSUED_ORIGIN, KEY_UNREADABLE
from tracker.issuer.services import baking, keys
from tracker.issuer.services.credentials import (
    Issuer,
    achievement,
    by_token,
    every_issued,
    issuable_certifications,
    issue,
    issued_for,
    public_state,
    revoke,
    set_sharing,
)
from tracker.issuer.services.status import status_list_credential
from tracker.people.views import person_name
from tracker.progress.models import Certification
from tracker.web.confirm import confirmation_page
from tracker.web.filters import named
from tracker.web.language import localized
from tracker.web.roles import role_required

bp = Blueprint("issuer", __name__)
# The public documents are read by verifiers on other sites (in browsers too).
OPEN_TO_ALL = {"Access-Control-Allow-Origin": "*"}
VC_TYPE = "application/vc+ld+json"
SAFE_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def _issuer() -> Issuer:
    config = current_app.config
    return Issuer(
        base_url=str(config["BASE_URL"]),
        name=str(config.get("ISSUER_NAME") or config["BASE_URL"]),
        secret_keys=secret_keys(),
    )


def _json(document: object, mimetype: str = "application/json") -> Response:
    body = json.dumps(document, ensure_ascii=False, indent=2)
    return Response(body, mimetype=mimetype, headers=OPEN_TO_ALL)


@bp.route("/open-badges")
@login_required
def mine():
    """List the holder's internal-track certifications, issued or to issue; admins see all."""
    session = db_session()
    certs = issuable_certifications(session, current_user)
    issued = issued_for(session, [c.id for c in certs])
    share_forms = {
        c.id: ShareForm(
            formdata=None,
            prefix=f"share-{c.id}",
            show_name=issued[c.id].show_name if c.id in issued else False,
        )
        for c in certs
    }
    everyone = every_issued(session) if current_user.access_role == "admin" else []
    return render_template(
        "issuer/mine.html",
        certs=certs,
        issued=issued,
        share_forms=share_forms,
        everyone=everyone,
        state_of=public_state,
        on=today(),
    )


def _own_certification(certification_id: int) -> Certification:
    cert = db_session().get(Certification, certification_id)
    if cert is None:
        abort(404)
    if cert.engineer_id != current_user.id:
        abort(403)
    return cert


@bp.post("/open-badges/certifications/<int:certification_id>/issue")
@login_required
def issue_badge(certification_id: int):
    """Sign an Open Badge for one of the holder's internal-track certifications."""
    cert = _own_certification(certification_id)
    form = ShareForm(prefix=f"share-{cert.id}")
    if not form.validate_on_submit():
        abort(400)
    try:
        issue(db_session(), cert, _issuer(), utcnow(), show_name=bool(form.show_name.data))
    except ValidationError as exc:
        for message in exc.errors.values():
            flash(localized(message), "error")
        return redirect(url_for(".mine"))
    except keys.KeyUnreadable:
        # The deployment's to mend, not the holder's: nothing they send again would sign.
        abort(503, description=KEY_UNREADABLE)
    flash(_("The Open Badge is issued: share its public page."), "success")
    return redirect(url_for(".mine"))


@bp.post("/open-badges/certifications/<int:certification_id>/sharing")
@login_required
def sharing(certification_id: int):
    """Change what the public page of the holder's credential shows."""
    cert = _own_certification(certification_id)
    row = issued_for(db_session(), [cert.id]).get(cert.id)
    if row is None:
        abort(404)
    form = ShareForm(prefix=f"share-{cert.id}")
    if not form.validate_on_submit():
        abort(400)
    set_sharing(db_session(), row, show_name=bool(form.show_name.data))
    flash(_("What the public page shows is saved."), "success")
    return redirect(url_for(".mine"))


@bp.route("/open-badges/<int:issued_id>/revoke", methods=["GET", "POST"])
@role_required("admin")
def revoke_badge(issued_id: int):
    """Ask, then revoke an issued credential (an admin's act): its status-list bit is set."""
    row = db_session().get(IssuedCredential, issued_id)
    if row is None:
        abort(404)
    if request.method == "GET":
        if row.revoked_at is not None:  # nothing left to confirm: the list says so
            return redirect(url_for(".mine"))
        return confirmation_page(
            question=_(
                "Revoke Open Badge #%(id)s, %(credential)s of %(name)s?",
                id=row.id,
                credential=(
                    named(row.certification.credential)
                    if row.certification
                    else _("(certification deleted)")
                ),
                name=person_name(row.engineer) if row.engineer else _("(deleted)"),
            ),
            happens=_(
                "Anyone who verifies it is told it is revoked, from now on: a revoked badge "
                "cannot be restored."
            ),
            kept=_("The certification itself stays on record, and so does the badge's page."),
            submit=_("Revoke the badge"),
            back=url_for(".mine"),
            form=RevokeForm(formdata=None, prefix=f"revoke-{row.id}"),
        )
    form = RevokeForm(prefix=f"revoke-{row.id}")
    if not form.validate_on_submit():
        abort(400)
    revoke(db_session(), row, current_user, utcnow())
    flash(_("The Open Badge is revoked."), "success")
    return redirect(url_for(".mine"))


def _public(token: str) -> IssuedCredential:
    row = by_token(db_session(), token)
    if row is None:
        abort(404)
    return row


@bp.route("/ob/<token>")
def public(token: str):
    """Show one credential to anyone with its address: only what its holder shares."""
    row = _public(token)
    document = json.loads(row.document)
    holder = row.engineer.name if row.show_name and row.engineer is not None else None
    return render_template(
        "issuer/public.html",
        row=row,
        document=document,
        achievement=document["credentialSubject"]["achievement"],
        holder=holder,
        state=public_state(row, today()),
        cert=row.certification,
        did=_issuer().did,
    )


def _filename(row: IssuedCredential) -> str:
    name = json.loads(row.document)["credentialSubject"]["achievement"]["name"]
    return SAFE_NAME.sub("-", name).strip("-").lower() or "open-badge"


@bp.route("/ob/<token>/credential.json")
def credential_json(token: str):
    """Download the signed credential."""
    row = _public(token)
    response = Response(row.document, mimetype=VC_TYPE, headers=OPEN_TO_ALL)
    response.headers["Content-Disposition"] = f'attachment; filename="{_filename(row)}.json"'
    return response


@bp.route("/ob/<token>/badge.png")
def badge_png(token: str):
    """Download the badge image with the credential baked in."""
    row = _public(token)
    image = baking.bake_png(baking.badge_image(), row.document)
    response = Response(image, mimetype="image/png", headers=OPEN_TO_ALL)
    if request.args.get("download"):
        response.headers["Content-Disposition"] = f'attachment; filename="{_filename(row)}.png"'
    return response


@bp.route("/ob/<token>/badge.svg")
def badge_svg(token: str):
    """Download the badge as SVG with the credential baked in."""
    row = _public(token)
    title = json.loads(row.document)["credentialSubject"]["achievement"]["name"]
    response = Response(
        baking.bake_svg(row.document, title), mimetype="image/svg+xml", headers=OPEN_TO_ALL
    )
    response.headers["Content-Disposition"] = f'attachment; filename="{_filename(row)}.svg"'
    return response


@bp.route("/ob/status")
def status_list():
    """Serve the status list credential; a verifier holding the same list gets a 304."""
    try:
        signed = status_list_credential(db_session(), _issuer(), utcnow())
    except keys.KeyUnreadable:
        # A verifier's machine reads this: the API's error shape, in the asker's language.
        refused = _json({"errors": {"issuer": localized(KEY_UNREADABLE)}})
        refused.status_code = 503
        refused.headers["Cache-Control"] = "no-store"
        return refused
    response = _json(signed, VC_TYPE)
    response.add_etag()
    return response.make_conditional(request)


@bp.route("/ob/achievements/<code>")
def achievement_json(code: str):
    """Serve the Achievement of an internal-track credential."""
    credential = db_session().scalar(
        select(Credential).where(
            Credential.code == code,
            Credential.origin == ISSUED_ORIGIN,
            Credential.kind == ISSUED_KIND,
        )
    )
    if credential is None:
        abort(404)
    return _json(achievement(_issuer(), credential))


@bp.route("/.well-known/did.json")
# A tracker served under a path (https://host/tracker) is did:web:host:tracker, whose
# document did:web looks for at /tracker/did.json.
@bp.route("/did.json")
def did_document():
    """Publish the issuer's DID document (did:web of the tracker's public URL)."""
    session = db_session()
    issuer = _issuer()
    keys.signing_key(session, issuer.secret_keys.current, utcnow())
    return _json(keys.did_document(session, issuer.did), "application/did+json")


@bp.route("/.well-known/jwks.json")
def jwks():
    """Publish the issuer's keys as a JSON Web Key Set."""
    session = db_session()
    issuer = _issuer()
    keys.signing_key(session, issuer.secret_keys.current, utcnow())
    return _json(keys.jwks(session, issuer.did))
