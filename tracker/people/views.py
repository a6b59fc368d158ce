"""Sign-in (a password, then a code for admins and the enrolled), sign-out and the profile."""

from __future__ import annotations

from typing import Any

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
from flask_babel import ngettext, refresh
from flask_login import current_user, login_required, login_user, logout_user

from tracker.audit.accounts import record_account_event
from tracker.clock import utcnow
from tracker.errors import ValidationError
from tracker.extensions import (
    db_session,
    secret_key,
    secret_keys,
    signin_limiter,
    totp_limiter,
)
from tracker.forms import show_errors
from tracker.people.forms import (
    LANGUAGE_NAMES,
    CodeForm,
    ConfirmCodesForm,
    LanguageForm,
    LocaleForm,
    LoginForm,
    PasswordForm,
    ProfileForm,
    TotpOffForm,
    TotpSetupForm,
)
from tracker.people.models import Engineer
from tracker.people.rules import LOCALES, TOTP_SECRET_LENGTH, shown_name
from tracker.people.services.access import can_view
from tracker.people.services.accounts import (
    authenticate,
    password_allowed,
    set_password,
    signed_in_engineer,
    verify_password,
)
from tracker.people.services.persons import set_locale
from tracker.people.services.reads import find_engineer
from tracker.people.services.totp import (
    CodeRefused,
    check_code,
    enrol,
    grouped,
    is_enrolled,
    looks_like_totp,
    new_secret,
    provisioning_uri,
    qr_code,
    recovery_codes_left,
    replace_recovery_codes,
    reset,
    role_requires_totp,
    second_step_required,
    use_recovery_code,
)
from tracker.people.signin import (
    SETUP_KEY,
    address,
    cancel,
    finish_sign_in,
    keep_next,
    landing,
    pending_engineer,
    refused,
    second_step_url,
    start_second_step,
)
from tracker.signals import first_answer, showing_profile, signing_out, template_context
from tracker.web.language import localized
from tracker.web.links import same_site_path

bp = Blueprint("people", __name__)

BAD_SIGN_IN = _l("Email or password is wrong.")
TOO_MANY_SIGN_INS = _l("Too many failed sign-ins. Wait 15 minutes and try again.")
PASSWORDS_OFF = _l("Password sign-in is turned off: use the single sign-on button above.")
TOO_MANY_CODES = _l("Too many wrong codes. Wait 15 minutes and try again.")


# Where an anonymous visitor's choice of language is kept (the session cookie).
LOCALE_KEY = "locale"


ACCESS_ROLE_LABELS = {
    "engineer": _l("engineer"),
    "manager": _l("manager"),
    "admin": _l("admin"),
}


def engineer_or_404(engineer_id: int) -> Engineer:
    """Return the engineer a page names, when the signed-in person may see them (403, 404)."""
    engineer = db_session().get(Engineer, engineer_id)
    if engineer is None:
        abort(404)
    if not can_view(current_user, engineer):
        abort(403)
    return engineer


@bp.app_template_filter("person_name")
def person_name(person: Any) -> str:
    """Show a person's name (an engineer, a readiness member) in the page's language."""
    return localized(shown_name(person.id, person.name))


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


@bp.route("/login", methods=["GET", "POST"])
def login():
    """Sign in with email and password; admins and the enrolled then give a code."""
    if current_user.is_authenticated:
        return redirect(url_for("progress.dashboard"))
    if request.method == "GET" and pending_engineer() is not None:
        keep_next()
        return redirect(second_step_url())
    form = LoginForm()
    if form.validate_on_submit():
        limiter, email = signin_limiter(), form.email.data
        if limiter.blocked(email, address()):
            refused(find_engineer(db_session(), email), email, "password", "rate_limited")
            form.form_errors.append(TOO_MANY_SIGN_INS)
            return _login_page(form, 429)
        if not _password_allowed(email):
            refused(find_engineer(db_session(), email), email, "password", "local_login_off")
            form.form_errors.append(PASSWORDS_OFF)
            return _login_page(form, 403)
        engineer = authenticate(db_session(), email, form.password.data)
        if engineer is None:
            limiter.failed(email, address())
            refused(find_engineer(db_session(), email), email, "password", "wrong_password")
            form.form_errors.append(BAD_SIGN_IN)
            return _login_page(form, 401)
        if not _password_allowed(engineer.email, engineer):
            refused(engineer, email, "password", "local_login_off")
            form.form_errors.append(PASSWORDS_OFF)
            return _login_page(form, 403)
        if second_step_required(engineer):
            return redirect(start_second_step(engineer))
        finish_sign_in(engineer, "password")
        return redirect(landing())
    return _login_page(form, 400 if form.is_submitted() else 200)


def _password_allowed(email: str, engineer: Engineer | None = None) -> bool:
    config = current_app.config
    return password_allowed(
        email,
        local_login=config["LOCAL_LOGIN"],
        break_glass=config["BREAK_GLASS_ADMINS"],
        engineer=engineer,
    )


@bp.route("/login/totp", methods=["GET", "POST"])
def totp():
    """The second step: a code from the authenticator app, or a recovery code."""
    if current_user.is_authenticated:
        return redirect(url_for("progress.dashboard"))
    engineer = pending_engineer()
    if engineer is None or not is_enrolled(engineer):
        return redirect(second_step_url())
    form = CodeForm()
    if form.validate_on_submit():
        limiter, code = totp_limiter(), form.code.data
        method = "totp" if looks_like_totp(code) else "recovery"
        if limiter.blocked(engineer.email, address()):
            refused(engineer, engineer.email, method, "rate_limited")
            form.form_errors.append(TOO_MANY_CODES)
            return _code_page(form, 429)
        try:
            if method == "totp":
                check_code(db_session(), engineer, code, utcnow(), keys=secret_keys())
            else:
                use_recovery_code(db_session(), engineer, code, utcnow())
        except CodeRefused as exc:
            limiter.failed(engineer.email, address())
            refused(engineer, engineer.email, method, exc.reason)
            show_errors(form, exc)
            return _code_page(form, 401)
        destination = landing()
        finish_sign_in(engineer, method)
        if method == "recovery":
            left = recovery_codes_left(db_session(), engineer)
            flash(
                ngettext(
                    "Signed in with a recovery code: %(num)d is left."
                    " Make new ones on your profile.",
                    "Signed in with a recovery code: %(num)d are left."
                    " Make new ones on your profile.",
                    left,
                ),
                "info",
            )
        return redirect(destination)
    return _code_page(form, 400 if form.is_submitted() else 200)


def _code_page(form: CodeForm, status: int):
    return render_template("people/totp.html", form=form), status


@bp.post("/login/cancel")
def cancel_sign_in():
    """Leave a half-finished sign-in (to sign in as someone else)."""
    cancel()
    return redirect(url_for("people.login"))


@bp.route("/login/totp/setup", methods=["GET", "POST"])
def totp_setup():
    """The first sign-in of someone who must give a code: set up the authenticator app."""
    if current_user.is_authenticated:
        return redirect(url_for("progress.dashboard"))
    engineer = pending_engineer()
    if engineer is None or is_enrolled(engineer):
        return redirect(second_step_url())
    return _setup(engineer, signing_in=True)


@bp.route("/profile/totp", methods=["GET", "POST"])
@login_required
def profile_totp():
    """Set up two-step sign-in from the profile (anyone may; admins must)."""
    if is_enrolled(current_user):
        flash(_("Two-step sign-in is set up already."), "info")
        return redirect(url_for("people.profile"))
    return _setup(current_user._get_current_object(), signing_in=False)


def _setup(engineer: Engineer, signing_in: bool):
    """Show the QR code and the key; the app's first code confirms it (once per step)."""
    secret = session.get(SETUP_KEY)
    if not isinstance(secret, str) or len(secret) != TOTP_SECRET_LENGTH:
        secret = session[SETUP_KEY] = new_secret()
    form = TotpSetupForm()
    status = 400 if form.is_submitted() else 200
    if form.validate_on_submit():
        limiter = totp_limiter()
        if limiter.blocked(engineer.email, address()):
            if signing_in:
                refused(engineer, engineer.email, "totp", "rate_limited")
            form.form_errors.append(TOO_MANY_CODES)
            return _setup_page(form, engineer, secret, signing_in, 429)
        try:
            codes = enrol(
                db_session(),
                engineer,
                secret,
                form.code.data,
                utcnow(),
                secret_key=secret_key(),
                address=address(),
            )
        except CodeRefused as exc:
            limiter.failed(engineer.email, address())
            if signing_in:
                refused(engineer, engineer.email, "totp", exc.reason)
            show_errors(form, exc)
            return _setup_page(form, engineer, secret, signing_in, 401 if signing_in else 400)
        session.pop(SETUP_KEY, None)
        destination = url_for("people.profile")
        if signing_in:
            destination = landing()
            finish_sign_in(engineer, "totp", {"enrolled": True})
        return render_template("people/recovery_codes.html", codes=codes, landing=destination)
    return _setup_page(form, engineer, secret, signing_in, status)


def _setup_page(form: TotpSetupForm, engineer: Engineer, secret: str, signing_in: bool, status):
    return render_template(
        "people/totp_setup.html",
        form=form,
        qr=qr_code(provisioning_uri(secret, engineer.email)),
        secret=grouped(secret),
        signing_in=signing_in,
        required=second_step_required(engineer),
    ), status


@bp.post("/profile/totp/recovery-codes")
@login_required
def new_recovery_codes():
    """Replace the recovery codes (the old ones stop working); the new ones are shown once."""
    form = ConfirmCodesForm()
    if not is_enrolled(current_user) or not form.validate_on_submit():
        abort(400, _("Set up two-step sign-in first: recovery codes come with it."))
    codes = replace_recovery_codes(db_session(), current_user, utcnow())
    return render_template(
        "people/recovery_codes.html", codes=codes, landing=url_for("people.profile")
    )


@bp.post("/profile/totp/off")
@login_required
def turn_off_totp():
    """Turn two-step sign-in off with a current code from the app; admins keep it."""
    engineer = current_user._get_current_object()
    if not is_enrolled(engineer):
        abort(400, _("Two-step sign-in is off already."))
    if role_requires_totp(engineer):
        abort(400, _("Admins keep two-step sign-in: their accounts can change everyone's."))
    form = TotpOffForm()
    status = 400
    if form.validate_on_submit():
        limiter = totp_limiter()
        if limiter.blocked(engineer.email, address()):
            form.code.errors = [*form.code.errors, TOO_MANY_CODES]
            status = 429
        else:
            try:
                check_code(db_session(), engineer, form.code.data, utcnow(), keys=secret_keys())
            except CodeRefused as exc:
                limiter.failed(engineer.email, address())
                show_errors(form, exc, {"code": "code"})
            else:
                reset(db_session(), engineer, actor=engineer, via="web")
                flash(_("Two-step sign-in is off: your password alone signs you in."), "success")
                return redirect(url_for("people.profile"))
    return _profile_page(ProfileForm(obj=current_user), PasswordForm(), status, totp_off_form=form)


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
    return redirect(same_site_path(form.next.data) or url_for("people.login"))


@bp.post("/logout")
@login_required
def logout():
    """Sign out, ending every session of this account."""
    current_user.session_epoch += 1
    # Signed in through a provider: signed out there too (its sign-out page comes back here).
    onward = first_answer(signing_out, current_user._get_current_object())
    record_account_event(
        db_session(),
        "sign_out",
        engineer_id=current_user.id,
        email=current_user.email,
        method="web",
        address=address(),
    )
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
    totp_off_form: TotpOffForm | None = None,
):
    enrolled = is_enrolled(current_user)
    return render_template(
        "people/profile.html",
        form=form,
        password_form=password_form,
        locale_form=locale_form or LocaleForm(obj=current_user),
        totp_enrolled=enrolled,
        recovery_left=recovery_codes_left(db_session(), current_user) if enrolled else 0,
        codes_form=ConfirmCodesForm(),
        totp_off_form=totp_off_form or TotpOffForm(formdata=None),
        totp_required=role_requires_totp(current_user),
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
    try:
        engineer_id, epoch = (int(part) for part in user_id.split(":"))
    except ValueError:
        return None
    return signed_in_engineer(db_session(), engineer_id, epoch)


def forbid_unless(allowed: bool) -> None:
    """Answer 403 unless the check passed."""
    if not allowed:
        abort(403)
