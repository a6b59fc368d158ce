"""The weekly digest: its choice on the profile, and the one-click unsubscribe link it carries.

The link (the digest's List-Unsubscribe header and the last line of its body)
opens without a sign-in: its signed token names the person and the list
(`services/unsubscribe.py`). A GET only asks, so a link scanner that follows
it changes nothing; the page's button, or a mail client's one-click POST
(RFC 8058: the body List-Unsubscribe=One-Click, no cookie, no CSRF token),
turns the digest off. A token cut short or changed answers 404 and stores
nothing. The page speaks the person's language, as their mail does.
"""

from __future__ import annotations

from dataclasses import dataclass

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
from flask_babel import force_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user, login_required
from werkzeug.exceptions import BadRequest

from tracker.extensions import csrf, db_session, secret_keys
from tracker.people.models import Engineer
from tracker.people.services.persons import set_weekly_digest
from tracker.reminders.forms import DigestForm, OneClickForm
from tracker.reminders.messages import reader_locale
from tracker.reminders.rules import (
    DIGEST_HORIZON_DAYS,
    ONE_CLICK_FIELD,
    ONE_CLICK_VALUE,
    UNSUBSCRIBE_PATH,
)
from tracker.reminders.services.unsubscribe import subscriber
from tracker.signals import showing_profile
from tracker.web.errors import http_error
from tracker.web.language import current_locale

bp = Blueprint("mail", __name__)

BAD_LINK = _l(
    "This unsubscribe link is not valid: part of it is missing or changed."
    " Sign in and turn the weekly digest off on your profile."
)
NOT_ONE_CLICK = _l(
    "An unsubscribe request must carry List-Unsubscribe=One-Click: use the page's button."
)


# --- the choice on the profile ---------------------------------------------------


@dataclass(frozen=True)
class DigestPanel:
    """The weekly digest's section of a person's own profile: its state and its switch."""

    on: bool
    form: DigestForm
    horizon: int = DIGEST_HORIZON_DAYS


@showing_profile.connect
def _profile_digest(engineer: Engineer) -> dict[str, DigestPanel]:
    form = DigestForm(formdata=None, obj=engineer)
    return {"digest": DigestPanel(engineer.weekly_digest, form)}


@bp.post("/profile/digest")
@login_required
def digest_setting():
    """Turn the signed-in person's weekly digest on or off."""
    form = DigestForm()
    if not form.validate_on_submit():
        abort(400, _("The form expired: reload the page and try again."))
    on = bool(form.weekly_digest.data)
    person = current_user._get_current_object()
    set_weekly_digest(db_session(), person, on, person, via="web")
    flash(
        _("Weekly digest on: it comes at the start of each week.")
        if on
        else _("Weekly digest off: you will not get it any more."),
        "success",
    )
    return redirect(url_for("people.profile", _anchor="weekly-digest"))


# --- the one-click link ------------------------------------------------------------


@bp.route(f"{UNSUBSCRIBE_PATH}/<token>", methods=["GET", "POST"])
@csrf.exempt
def unsubscribe(token: str):
    """Ask (GET), then turn off (POST) the weekly digest of the person the token names."""
    session = db_session()
    engineer_id = subscriber(secret_keys(), token)
    engineer = session.get(Engineer, engineer_id) if engineer_id is not None else None
    if engineer is None:
        abort(404, BAD_LINK)
    # Opened from the person's mail, without a session: the page speaks the mail's
    # language, their setting; "as my browser asks" leaves the browser's. So does
    # the refusal of a request without the one-click body, drawn here rather than
    # after the view (in the browser's language).
    with force_locale(reader_locale(engineer.locale, current_locale())):
        if request.method == "POST" and request.form.get(ONE_CLICK_FIELD) != ONE_CLICK_VALUE:
            return _kept_private(http_error(current_app, BadRequest(NOT_ONE_CLICK)))
        if request.method == "POST":
            # The person, holding their own link, turns it off.
            set_weekly_digest(session, engineer, False, engineer, via="unsubscribe")
        page = render_template(
            "reminders/unsubscribe.html",
            on=engineer.weekly_digest,
            form=OneClickForm(formdata=None),
            horizon=DIGEST_HORIZON_DAYS,
        )
    return _kept_private(Response(page))


def _kept_private(response: Response) -> Response:
    """Keep a page of one person's link out of caches and search engines."""
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Robots-Tag"] = "noindex, nofollow"
    return response
