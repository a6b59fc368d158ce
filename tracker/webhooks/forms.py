"""The webhooks page's forms: an endpoint to register, and the buttons on each row."""

from __future__ import annotations

from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, Field, StringField
from wtforms.validators import ValidationError

from tracker.forms import DataRequired, ListedChoice, choices
from tracker.web.language import localized
from tracker.webhooks.rules import EVENTS
from tracker.webhooks.services.endpoints import url_problem

EVENT_LABELS = {
    "certification.earned": _l("A certification is earned"),
    "certification.renewed": _l("A certification is renewed"),
    "certification.expiring": _l("A certification expires soon (at each reminder window)"),
    "certification.lapsed": _l("A certification lapsed"),
    "certification.revoked": _l("A certification's issuer revoked its badge"),
    "readiness.dropped": _l("A lapse dropped a team's readiness"),
    "hours.logged": _l("Hours are logged"),
}
FORMAT_LABELS = {
    "generic": _l("Generic JSON (Standard Webhooks)"),
    "slack": _l("Slack incoming webhook"),
    "teams": _l("Microsoft Teams Workflows (Adaptive Card)"),
}


def event_field(event: str) -> str:
    """Return the form field of an event: its name with underscores for dots."""
    return "event_" + event.replace(".", "_")


def _url(form: FlaskForm, field: Field) -> None:
    problem = url_problem((field.data or "").strip())
    if problem is not None:
        raise ValidationError(localized(problem))


class _EndpointFields(FlaskForm):
    url = StringField(
        _l("URL"),
        validators=[DataRequired(message=_l("a URL is required")), _url],
        description=_l("Where the events are sent, with POST: an http:// or https:// address."),
        render_kw={"inputmode": "url", "autocomplete": "off"},
    )
    format = ListedChoice(
        _l("Format"),
        not_listed=_l("choose one of the listed formats"),
        choices=choices(FORMAT_LABELS.items()),
        default="generic",
    )

    def chosen_events(self) -> list[str]:
        """Return the events ticked, in EVENTS' order."""
        return [event for event in EVENTS if self[event_field(event)].data]

    def validate(self, extra_validators: Any = None) -> bool:
        valid = super().validate(extra_validators)
        if not self.chosen_events():
            self.form_errors.append(_("choose at least one event"))
            return False
        return valid


# One switch per event, named after it (certification.earned: event_certification_earned).
EndpointForm = type(
    "EndpointForm",
    (_EndpointFields,),
    {event_field(event): BooleanField(label) for event, label in EVENT_LABELS.items()},
)


class ButtonForm(FlaskForm):
    """A button that posts with its CSRF token (remove, rotate, retry)."""
