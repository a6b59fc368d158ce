"""Signing in with the OpenID provider: off to its page, back with a code, and signing out there.

The routes exist only when TRACKER_OIDC_ISSUER is set (`install`). A refusal
shows on the sign-in page with its reason, as a 4xx (502 when the provider does
not answer); the used state and the account trail are kept even then.
"""

from __future__ import annotations

import calendar
import hmac
from typing import Any

from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from flask_login import current_user, login_required, login_user
from sqlalchemy.exc import IntegrityError

from tracker.clock import today, utcnow
from tracker.db import WRITE_INTENT
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.identity.forms import UnlinkForm
from tracker.identity.models import Identity
from tracker.identity.rules import MAX_KEPT_ID_TOKEN_LENGTH
from tracker.identity.services.linking import linked_identities, sign_in_person, unlink_identity
from tracker.identity.services.pending import begin_sign_in, finish_sign_in
from tracker.identity.services.provider import OpenIdProvider
from tracker.identity.services.refusals import SignInRefused, record_refusal
from tracker.identity.services.settings import oidc_settings
from tracker.people.forms import LANGUAGE_NAMES, LanguageForm, LoginForm
from tracker.people.models import Engineer
from tracker.people.signin import address
from tracker.signals import showing_profile, signing_out
from tracker.web.confirm import confirmation_page
from tracker.web.language import localized
from tracker.web.links import same_site_path

bp = Blueprint("identity", __name__)
# The profile's linked accounts: served whether or not single sign-on is on now,
# so that an account linked before can still be unlinked.
accounts = Blueprint("identity_accounts", __name__)

PROVIDER = "tracker.oidc"
# What the session cookie keeps: the state of the sign-in under way (it binds the
# provider's answer to this browser), and after it the ID token for signing out there.
STATE_KEY = "oidc_state"
ID_TOKEN_KEY = "oidc_id_token"
# How this session signed in ("oidc"): a provider's sign-in needs no second step here.
METHOD_KEY = "sign_in_method"

# The page's status for each kind of refusal; any other kind is 403.
REFUSAL_STATUS = {"state": 400, "provider_error": 401, "token": 401, "unreachable": 502}


def provider() -> OpenIdProvider:
    return current_app.extensions[PROVIDER]


@bp.before_request
def writer() -> None:
    # Both routes write (the sign-in under way, the trail): a writer's transaction from BEGIN.
    g.write_intent = WRITE_INTENT.set(True)


@bp.get("/login/oidc")
def login():
    """Send the visitor to the provider's sign-in page."""
    if current_user.is_authenticated:
        return redirect(url_for("progress.dashboard"))
    try:
        # Asked before the sign-in is written, so that nothing is held while the
        # provider answers; authorization_url then reads it from the cache.
        provider().metadata()
    except SignInRefused as refusal:
        return _refused(refusal)
    pending = begin_sign_in(
        db_session(), now=utcnow(), next_path=same_site_path(request.args.get("next")) or ""
    )
    try:
        url = provider().authorization_url(
            state=pending.state, nonce=pending.nonce, code_verifier=pending.code_verifier
        )
    except SignInRefused as refusal:
        return _refused(refusal)
    session[STATE_KEY] = pending.state
    return redirect(url)


@bp.get("/login/oidc/callback")
def callback():
    """Take the provider's answer: check it, find or create the person, sign them in."""
    address = request.remote_addr or "unknown"
    now = utcnow()
    db = db_session()
    settings = provider().settings
    try:
        state = request.args.get("state", "")
        expected = session.pop(STATE_KEY, None)
        if not state or not isinstance(expected, str) or not hmac.compare_digest(state, expected):
            raise SignInRefused("state", "state_not_this_browser")
        pending = finish_sign_in(db, state, now=now)
        # RFC 9207: an answer naming another issuer comes from another provider (a mix-up).
        if request.args.get("iss", settings.issuer) != settings.issuer:
            raise SignInRefused("token", "wrong_issuer")
        if "error" in request.args:
            raise SignInRefused(
                "provider_error", "provider_error", error=request.args["error"][:100]
            )
        code = request.args.get("code")
        if not code:
            raise SignInRefused("token", "missing_code")
        verifier, nonce, next_path = pending.code_verifier, pending.nonce, pending.next_path
        # The state is spent whatever the provider answers (as on a refusal, below):
        # committed now, so that nothing (SQLite's write lock) is held while it answers.
        db.commit()
        claims = provider().sign_in(
            code=code,
            code_verifier=verifier,
            nonce=nonce,
            now=calendar.timegm(now.utctimetuple()),
        )
        # A refusal while linking leaves nothing of the link behind, only the trail.
        try:
            with db.begin_nested():
                engineer = sign_in_person(
                    db, settings, claims, today=today(), now=now, address=address
                )
        except IntegrityError:
            # Another request linked or created this provider account at the same moment
            # (a double click, two tabs): it is linked now, so a second look finds it.
            with db.begin_nested():
                engineer = sign_in_person(
                    db, settings, claims, today=today(), now=now, address=address
                )
    except SignInRefused as refusal:
        record_refusal(db, refusal, address)
        # The request boundary keeps nothing of a 4xx: the used state and the trail must stay.
        db.commit()
        return _refused(refusal)
    login_user(engineer)
    session[METHOD_KEY] = "oidc"
    id_token = claims["id_token"]
    if len(id_token) <= MAX_KEPT_ID_TOKEN_LENGTH:
        session[ID_TOKEN_KEY] = id_token
    return redirect(next_path or url_for("progress.dashboard"))


def _refused(refusal: SignInRefused):
    """Show the sign-in page with the refusal's message."""
    message = localized(refusal.message(provider().settings.display_name))
    return render_template(
        "people/login.html",
        form=LoginForm(formdata=None),
        login_action=url_for("people.login"),
        language_form=LanguageForm(formdata=None, next=url_for("people.login")),
        language_names=LANGUAGE_NAMES,
        sign_in_error=message,
    ), REFUSAL_STATUS.get(refusal.kind, 403)


@signing_out.connect
def sign_out_at_provider(engineer: Any, **_: Any) -> str | None:
    """Return the provider's sign-out page when this session signed in there."""
    if PROVIDER not in current_app.extensions or session.pop(METHOD_KEY, None) != "oidc":
        return None
    return provider().end_session_url(session.pop(ID_TOKEN_KEY, None))


def sign_in_options() -> dict[str, Any]:
    """Give the sign-in page the provider's name, for its button."""
    return {"single_sign_on": provider().settings.display_name}


@showing_profile.connect
def _linked_accounts(engineer: Engineer) -> dict[str, Any]:
    """Give the profile the person's provider accounts, each with its button that unlinks it."""
    return {"identities": linked_identities(db_session(), engineer)}


@accounts.route("/profile/identities/<int:identity_id>/unlink", methods=["GET", "POST"])
@login_required
def unlink(identity_id: int):
    """Ask, then unlink one of the person's provider accounts (not their only way in)."""
    if request.method == "GET":
        asked = db_session().get(Identity, identity_id)
        if asked is None or asked.engineer_id != current_user.id:
            abort(404)
        return confirmation_page(
            question=_("Unlink your account at %(issuer)s?", issuer=asked.issuer),
            happens=_(
                "It no longer signs you in until you link it anew, through your verified address."
            ),
            kept=_("Your records stay as they are; your account trail notes the unlinking."),
            submit=_("Unlink"),
            back=url_for("people.profile", _anchor="identities"),
            form=UnlinkForm(formdata=None),
        )
    if not UnlinkForm().validate_on_submit():
        abort(400, _("The form expired: reload the page and try again."))
    me = current_user._get_current_object()
    try:
        identity: Identity = unlink_identity(db_session(), me, identity_id, address())
    except LookupError:
        abort(404)
    except ValidationError as exc:
        abort(400, localized(exc.errors["identity"]))
    flash(_("Unlinked your account at %(issuer)s.", issuer=identity.issuer), "success")
    return redirect(url_for("people.profile"))


def install(app: Flask) -> None:
    """Offer single sign-on when TRACKER_OIDC_ISSUER is set; check the settings (ValueError)."""
    app.register_blueprint(accounts)
    settings = oidc_settings(app.config)
    if settings is None:
        return
    app.extensions[PROVIDER] = OpenIdProvider(settings)
    # Signing out goes on to the provider's page from a form: the CSP lets the form go there.
    app.config["FORM_ACTION_ORIGINS"] = (
        *(app.config.get("FORM_ACTION_ORIGINS") or ()),
        settings.origin,
    )
    app.context_processor(sign_in_options)
    app.register_blueprint(bp)
