"""Calendar feeds: the secret .ics URLs, and the buttons that create, replace or remove them.

The feed URLs need no sign-in: the token is the secret. Managing a token is a
signed-in POST with its CSRF token (a removal asked first, by a GET of the same
URL): an engineer manages their own feed only; a team's feed is managed by its
manager or an admin.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from flask import Blueprint, Response, abort, current_app, flash, redirect, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from tracker.extensions import db_session
from tracker.people.models import Engineer, Team
from tracker.people.rules import MANAGER_ROLES
from tracker.readiness.views import team_or_404
from tracker.reminders import calendars
from tracker.reminders.forms import FeedTokenForm
from tracker.signals import showing_profile, showing_team
from tracker.web.confirm import back_to, confirmation_page
from tracker.web.links import here
from tracker.web.roles import role_required

bp = Blueprint("calendars", __name__, url_prefix="/calendar")


def _base_url() -> str:
    return str(current_app.config.get("BASE_URL") or "").rstrip("/")


def _ics(body: str, filename: str) -> Response:
    response = Response(body, content_type="text/calendar; charset=utf-8")
    response.headers["Content-Disposition"] = f'inline; filename="{filename}"'
    # Revoking a token must take effect at once: no shared cache may keep the feed.
    response.headers["Cache-Control"] = "private, no-cache"
    response.headers["X-Robots-Tag"] = "noindex, nofollow"
    # Calendar servers poll a feed for hours on end: one unchanged since their last
    # copy (its ETag, a hash of the body) answers 304 with no body.
    response.add_etag()
    response.make_conditional(request)  # in place: the same response, 304 when unchanged
    return response


# --- the feeds ----------------------------------------------------------------


@bp.get("/engineer/<token>.ics")
def engineer_feed(token: str):
    """An engineer's certification expiries; 404 for an unknown or revoked token."""
    session = db_session()
    engineer = calendars.engineer_by_token(session, token)
    if engineer is None:
        abort(404)
    body = calendars.engineer_feed(
        session,
        engineer,
        _base_url() or calendars.DEFAULT_BASE_URL,
        current_app.config["DEFAULT_LOCALE"],
    )
    return _ics(body, "certifications.ics")


@bp.get("/team/<token>.ics")
def team_feed(token: str):
    """A team's certification expiries (every active member); 404 for a bad token."""
    session = db_session()
    team = calendars.team_by_token(session, token)
    if team is None:
        abort(404)
    body = calendars.team_feed(
        session,
        team,
        _base_url() or calendars.DEFAULT_BASE_URL,
        current_app.config["DEFAULT_LOCALE"],
    )
    return _ics(body, "team-certifications.ics")


# --- what the profile and team pages show -------------------------------------


@dataclass(frozen=True)
class FeedPanel:
    """A feed's URL (None when there is none) and the buttons that manage it."""

    url: str | None
    replace_action: str
    remove_url: str
    replace_form: FeedTokenForm


def _feed_url(endpoint: str, token: str | None) -> str | None:
    if token is None:
        return None
    path = url_for(endpoint, token=token)
    base = _base_url()
    return f"{base}{path}" if base else url_for(endpoint, token=token, _external=True)


def engineer_panel(engineer: Engineer) -> FeedPanel:
    """Return the calendar-feed section of the engineer's own profile."""
    return FeedPanel(
        url=_feed_url("calendars.engineer_feed", engineer.calendar_token),
        replace_action=url_for("calendars.replace_own_token"),
        remove_url=url_for("calendars.remove_own_token"),
        replace_form=FeedTokenForm(formdata=None, prefix="feed-replace"),
    )


def team_panel(team: Team) -> FeedPanel:
    """Return the calendar-feed section of a team's page, its buttons coming back to it."""
    # The page as drawn, its "what if" query (?gpus=&on=) with it.
    back = here()
    return FeedPanel(
        url=_feed_url("calendars.team_feed", team.calendar_token),
        replace_action=url_for("calendars.replace_team_token", team_id=team.id, back=back),
        remove_url=url_for("calendars.remove_team_token", team_id=team.id, back=back),
        replace_form=FeedTokenForm(formdata=None, prefix="feed-replace"),
    )


@showing_profile.connect
def _profile_feed(engineer: Engineer) -> dict[str, FeedPanel]:
    return {"feed": engineer_panel(engineer)}


@showing_team.connect
def _team_feed(team: Team) -> dict[str, FeedPanel]:
    return {"feed": team_panel(team)}


def _check(prefix: str) -> None:
    """Validate the button's form (its CSRF token, when protection is on)."""
    if not FeedTokenForm(prefix=prefix).validate_on_submit():
        abort(400, _("The form expired: reload the page and try again."))


def _me() -> Engineer:
    return current_user._get_current_object()


# --- managing the engineer's own token ----------------------------------------


@bp.post("/mine/token")
@login_required
def replace_own_token():
    """Create the signed-in engineer's feed URL, or replace it (the old one stops working)."""
    _check("feed-replace")
    me = _me()
    had = me.calendar_token is not None
    calendars.replace_token(db_session(), me)
    flash(
        _("Calendar feed replaced: the old link no longer works.")
        if had
        else _("Calendar feed created: subscribe to the link from your calendar program."),
        "success",
    )
    return redirect(url_for("people.profile"))


def _confirm_removal(question: str, back: str):
    """Ask before a feed's link is removed: what stops working, what stays."""
    return confirmation_page(
        question=question,
        happens=_("The link stops working at once: calendars subscribed to it stop updating."),
        kept=_("The certifications and their dates stay as they are; a new link can be made."),
        submit=_("Remove the link"),
        back=back,
        form=FeedTokenForm(formdata=None, prefix="feed-remove"),
    )


@bp.route("/mine/token/remove", methods=["GET", "POST"])
@login_required
def remove_own_token():
    """Ask, then remove the signed-in engineer's feed URL."""
    if request.method == "GET":
        back = url_for("people.profile", _anchor="calendar-feed")
        if _me().calendar_token is None:
            return redirect(back)
        return _confirm_removal(_("Remove the link to your calendar feed?"), back)
    _check("feed-remove")
    calendars.remove_token(db_session(), _me())
    flash(_("Calendar feed removed: its link no longer works."), "success")
    return redirect(url_for("people.profile"))


# --- managing a team's token --------------------------------------------------


def _team_page(team: Team) -> str:
    """Return the team page the button was on (?back=, its query kept), else the plain one."""
    return back_to(url_for("readiness.team", team_id=team.id))


@bp.post("/team/<int:team_id>/token")
@role_required(*MANAGER_ROLES)
def replace_team_token(team_id: int):
    """Create a team's feed URL, or replace it; for the team's manager or an admin."""
    team = team_or_404(team_id)
    _check("feed-replace")
    had = team.calendar_token is not None
    calendars.replace_token(db_session(), team)
    flash(
        _("%(team)s's calendar feed replaced: the old link no longer works.", team=team.name)
        if had
        else _("%(team)s's calendar feed created.", team=team.name),
        "success",
    )
    return redirect(_team_page(team))


@bp.route("/team/<int:team_id>/token/remove", methods=["GET", "POST"])
@role_required(*MANAGER_ROLES)
def remove_team_token(team_id: int):
    """Ask, then remove a team's feed URL; for the team's manager or an admin."""
    team = team_or_404(team_id)
    if request.method == "GET":
        back = urlunsplit(urlsplit(_team_page(team))._replace(fragment="calendar-feed"))
        if team.calendar_token is None:
            return redirect(back)
        question = _("Remove the link to %(team)s's calendar feed?", team=team.name)
        return _confirm_removal(question, back)
    _check("feed-remove")
    calendars.remove_token(db_session(), team)
    flash(
        _("%(team)s's calendar feed removed: its link no longer works.", team=team.name),
        "success",
    )
    return redirect(_team_page(team))
