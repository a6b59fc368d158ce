"""Sign-in, sign-out and the profile."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    has_request_context,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import refresh
from flask_login import current_user, login_required, login_user, logout_user

from tracker.errors import ValidationError
from tracker.extensions import db_session, signin_limiter
from tracker.people.forms import (
    LANGUAGE_NAMES,
    LanguageForm,
    LocaleForm,
    LoginForm,
    PasswordForm,
    ProfileForm,
)
from tracker.people.rules import LOCALES
from tracker.people.services.accounts import (
    authenticate,
    password_allowed,
    set_password,
    verify_password,
)
from tracker.people.services.persons import set_locale
from tracker.signals import first_answer, showing_profile, signing_out, template_context
from tracker.web import localized

if TYPE_CHECKING:
    from tracker.people.models import Engineer

bp = Blueprint("people", __name__)

BAD_SIGN_IN = _l("Email or password is wrong.")
TOO_MANY_SIGN_INS = _l("Too many failed sign-ins. Wait 15 minutes and try again.")
PASSWORDS_OFF = _l("Password sign-in is turned off: use the single sign-on button above.")


# Where an anonymous visitor's choice of language is kept (the session cookie).
LOCALE_KEY = "locale"


ACCESS_ROLE_LABELS = {
    "engineer": _l("engineer"),
    "manager": _l("manager"),
    "admin": _l("admin"),
}


@bp.app_template_filter("access_role_label")
def access_role_label(role: str) -> object:
    """Name an access role in the page's language."""
    return ACCESS_ROLE_LABELS.get(role, role)


def select_locale() -> str | None:
    """Choose the request's language: the person's setting, the visitor's choice, the browser's.

    None (outside a request, or nothing matches) leaves Flask-Babel's default,
    TRACKER_DEFAULT_LOCALE.
    """
    if not has_request_context():
        return None
    # The 503 page draws for an anonymous stand-in that has no setting.
    setting = getattr(current_user, "locale", None)
    if setting in LOCALES:
        return setting
    chosen = session.get(LOCALE_KEY)
    if chosen in LOCALES:
        return chosen
    return request.accept_languages.best_match(LOCALES) or current_app.config["DEFAULT_LOCALE"]


def safe_next(target: str | None) -> str | None:
    """Return `target` when it is a path on this site, else None (no open redirects)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return None
    parts = urlsplit(target)
    return target if not parts.scheme and not parts.netloc else None


@bp.route("/login", methods=["GET", "POST"])
def login():
    """Sign in with email and password."""
    if current_user.is_authenticated:
        return redirect(url_for("progress.dashboard"))
    form = LoginForm()
    if form.validate_on_submit():
        address = request.remote_addr or "unknown"
        limiter = signin_limiter()
        if limiter.blocked(form.email.data, address):
            form.form_errors.append(TOO_MANY_SIGN_INS)
            return _login_page(form, 429)
        if not _password_allowed(form.email.data):
            form.form_errors.append(PASSWORDS_OFF)
            return _login_page(form, 403)
        engineer = authenticate(db_session(), form.email.data, form.password.data)
        if engineer is None:
            limiter.failed(form.email.data, address)
            form.form_errors.append(BAD_SIGN_IN)
            return _login_page(form, 401)
        if not _password_allowed(engineer.email, engineer):
            form.form_errors.append(PASSWORDS_OFF)
            return _login_page(form, 403)
        login_user(engineer)
        return redirect(safe_next(request.args.get("next")) or url_for("progress.dashboard"))
    return _login_page(form, 400 if form.is_submitted() else 200)


def _password_allowed(email: str, engineer: Engineer | None = None) -> bool:
    config = current_app.config
    return password_allowed(
        email,
        local_login=config["LOCAL_LOGIN"],
        break_glass=config["BREAK_GLASS_ADMINS"],
        engineer=engineer,
    )


def _login_page(form: LoginForm, status: int):
    return render_template(
        "people/login.html",
        form=form,
        language_form=LanguageForm(formdata=None, next=request.full_path),
        language_names=LANGUAGE_NAMES,
    ), status


@bp.post("/locale")
def choose_locale():
    """Keep a visitor's choice of language in their session; a person's setting still wins."""
    form = LanguageForm()
    if not form.validate_on_submit():
        abort(400, _("The language must be one of: %(names)s.", names=", ".join(LANGUAGE_NAMES)))
    session[LOCALE_KEY] = form.locale.data
    return redirect(safe_next(form.next.data) or url_for("people.login"))


@bp.post("/logout")
@login_required
def logout():
    """Sign out, ending every session of this account."""
    current_user.session_epoch += 1
    # Signed in through a provider: signed out there too (its sign-out page comes back here).
    onward = first_answer(signing_out, current_user._get_current_object())
    # Signed out, the person's language stays theirs: the sign-in page keeps speaking it.
    if current_user.locale in LOCALES:
        session[LOCALE_KEY] = current_user.locale
    logout_user()
    flash(_("You are signed out."), "info")
    return redirect(onward or url_for("people.login"))


@bp.route("/profile", methods=["GET", "POST"])
@login_required
def profile():
    """Show and edit the documented experience."""
    form = ProfileForm(obj=current_user)
    if form.validate_on_submit():
        current_user.experience_months = form.experience_months.data
        current_user.experience_text = (form.experience_text.data or "").strip()
        flash(_("Profile saved."), "success")
        return redirect(url_for("people.profile"))
    status = 400 if form.is_submitted() else 200
    return _profile_page(form, PasswordForm(), status)


def _profile_page(
    form: ProfileForm,
    password_form: PasswordForm,
    status: int,
    locale_form: LocaleForm | None = None,
):
    return render_template(
        "people/profile.html",
        form=form,
        password_form=password_form,
        locale_form=locale_form or LocaleForm(obj=current_user),
        **template_context(showing_profile, current_user._get_current_object()),
    ), status


@bp.post("/profile/locale")
@login_required
def change_locale():
    """Set the person's interface language."""
    form = LocaleForm()
    if form.validate_on_submit():
        set_locale(db_session(), current_user, form.locale.data)
        # This request chose its language before the change: the message says it in the new one.
        refresh()
        flash(_("Language saved."), "success")
        return redirect(url_for("people.profile"))
    return _profile_page(ProfileForm(obj=current_user), PasswordForm(), 400, form)


@bp.post("/profile/password")
@login_required
def change_password():
    """Change the password; every other session of the account ends."""
    form = PasswordForm()
    if form.validate_on_submit():
        if not verify_password(current_user, form.current.data):
            form.current.errors.append(_("The current password is wrong."))
        else:
            try:
                set_password(db_session(), current_user, form.new.data)
            except ValidationError as exc:
                form.new.errors.append(localized(exc.errors["password"]))
            else:
                # The user, not the proxy: g would hold a proxy that resolves to itself.
                login_user(current_user._get_current_object())
                flash(_("Password changed; other sessions are signed out."), "success")
                return redirect(url_for("people.profile"))
    return _profile_page(ProfileForm(obj=current_user), form, 400)


def load_user(user_id: str):
    """Load the signed-in engineer if the session's epoch is still current."""
    from tracker.people.models import Engineer

    try:
        engineer_id, epoch = (int(part) for part in user_id.split(":"))
    except ValueError:
        return None
    engineer = db_session().get(Engineer, engineer_id)
    if engineer is None or not engineer.active or engineer.session_epoch != epoch:
        return None
    return engineer


def forbid_unless(allowed: bool) -> None:
    """Answer 403 unless the check passed."""
    if not allowed:
        abort(403)
