"""The bonus ledger (a quarter's page and its CSV for payroll) and the amounts admins set."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import login_required

from tracker.careers.forms import BonusForm, QuarterForm
from tracker.careers.services.bonuses import (
    BonusRow,
    Quarter,
    bonus_credential,
    bonus_credentials,
    ledger,
    set_bonus,
    since,
)
from tracker.careers.services.bonuses import bonuses as bonus_list
from tracker.careers.views.blueprint import bp, signed_in_person
from tracker.catalog.rules import DECIMAL_PLACES
from tracker.clock import today
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import choices, show_errors
from tracker.i18n import day
from tracker.people.services.access import visible_engineers
from tracker.people.views import person_name
from tracker.web.downloads import csv_download
from tracker.web.filters import money_filter, named
from tracker.web.language import localized
from tracker.web.roles import role_required


def _quarter() -> tuple[QuarterForm, Quarter | None]:
    """Read ?quarter=YYYY-Qn (default: today's quarter); None when malformed."""
    form = QuarterForm(request.args)
    if request.args.get("quarter", "").strip():
        if not form.validate():
            return form, None
        try:
            return form, Quarter.parse(form.quarter.data)
        except ValidationError as exc:
            # Written as the form asks, yet of a year the ledger does not read.
            form.quarter.errors = [localized(exc.errors["quarter"])]
            return form, None
    quarter = Quarter.of(today())
    form.quarter.data = str(quarter)
    return form, quarter


def _ledger_rows(quarter: Quarter) -> list[BonusRow]:
    session = db_session()
    actor = signed_in_person()
    ids = None
    if actor.access_role != "admin":
        ids = [e.id for e in visible_engineers(session, actor)]
    return ledger(session, quarter, ids)


@bp.get("/bonuses")
@login_required
def bonuses():
    """The bonuses earned in a quarter: everyone's for an admin, a manager's people, one's own."""
    form, quarter = _quarter()
    if quarter is None:
        return render_template("careers/bonuses.html", form=form, quarter=None, rows=[]), 400
    rows = _ledger_rows(quarter)
    return render_template(
        "careers/bonuses.html",
        form=form,
        quarter=quarter,
        rows=rows,
        total=sum((r.amount for r in rows), Decimal(0)),
    )


@bp.get("/bonuses.csv")
@login_required
def bonuses_csv():
    """Download a quarter's bonus ledger for payroll."""
    form, quarter = _quarter()
    if quarter is None:
        abort(400, str(form.quarter.errors[0]))
    header = (
        _("quarter"),
        _("engineer"),
        _("email"),
        _("certification"),
        _("name"),
        _("passed_on"),
        _("renewal"),
        _("amount"),
    )
    rows = [
        (
            str(quarter),
            person_name(row.engineer),
            row.engineer.email,
            row.credential.code,
            # Named as the page names it; the code beside it is the data.
            named(row.credential),
            row.passed_on.isoformat(),
            # As the page says it, in the reader's language.
            _("yes") if row.renewal else _("no"),
            # A decimal point in every language: payroll's spreadsheets and scripts read it.
            f"{row.amount:.{DECIMAL_PLACES}f}",
        )
        for row in _ledger_rows(quarter)
    ]
    return csv_download([header, *rows], f"bonuses-{quarter}.csv")


@bp.route("/bonuses/amounts", methods=["GET", "POST"])
@role_required("admin")
def bonus_amounts():
    """Set the amount the organisation pays per certification, and whether renewals earn it."""
    session = db_session()
    on = today()
    form = BonusForm()
    form.credential.choices = choices(
        (c.code, f"{c.code} · {named(c)}") for c in bonus_credentials(session)
    )
    if not form.is_submitted():
        form.effective_on.data = on
    status = 200
    if form.validate_on_submit():
        try:
            credential = bonus_credential(session, form.credential.data)
            bonus = set_bonus(
                session,
                credential,
                form.amount.data,
                form.renewals_earn.data,
                effective_on=form.effective_on.data,
                today=on,
                verified_only=form.verified_only.data,
            )
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            message = (
                _(
                    "%(code)s: bonus %(amount)s (renewals earn it too), "
                    "for certifications passed %(since)s."
                )
                if bonus.renewals_earn
                else _(
                    "%(code)s: bonus %(amount)s (renewals do not earn it), "
                    "for certifications passed %(since)s."
                )
            )
            flash(
                message
                % {
                    "code": credential.code,
                    "amount": money_filter(bonus.amount),
                    "since": localized(since(bonus)),
                },
                "success",
            )
            return redirect(url_for("careers.bonus_amounts"))
    if form.is_submitted():
        status = 400
    # The history comes by credential, latest first: the first of each is its
    # current amount, and each earlier one ran until the day before the next.
    current, earlier, later = [], [], None
    for bonus in bonus_list(session, history=True):
        if later is not None and later.credential_id == bonus.credential_id:
            earlier.append((bonus, day(later.effective_on - dt.timedelta(days=1))))
        else:
            current.append(bonus)
        later = bonus
    return render_template(
        "careers/bonus_amounts.html",
        form=form,
        bonuses=current,
        earlier=earlier,
        since=since,
    ), status
