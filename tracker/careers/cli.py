"""Bonus commands: `tracker bonus set CODE AMOUNT`, `tracker bonus list`, `tracker bonus ledger`."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal, InvalidOperation

import click
from flask.cli import AppGroup

from tracker.careers.services.bonuses import (
    Quarter,
    bonus_credential,
    bonuses,
    ledger,
    set_bonus,
    since,
)
from tracker.clock import today
from tracker.errors import ValidationError
from tracker.extensions import db_session

bonus_cli = AppGroup("bonus", help="Certification bonuses: amounts and the ledger per quarter.")


def _fail(exc: ValidationError) -> click.ClickException:
    return click.ClickException("; ".join(f"{k}: {v}" for k, v in exc.errors.items()))


@bonus_cli.command("set")
@click.argument("code")
@click.argument("amount")
@click.option(
    "--renewals/--no-renewals",
    default=None,
    help="Whether a renewal earns the bonus too (default: keep; no for a new bonus).",
)
@click.option(
    "--from",
    "effective",
    metavar="YYYY-MM-DD",
    help="Certifications passed from this day on earn it (default: today; not after today).",
)
def bonus_set(code: str, amount: str, renewals: bool | None, effective: str | None) -> None:
    """Set the bonus paid for earning the certification CODE (AMOUNT in USD, 0 to stop it).

    Certifications passed earlier keep the amount in effect when they were passed.
    """
    session = db_session()
    try:
        value = Decimal(amount.strip().replace(",", ""))
    except InvalidOperation:
        raise click.ClickException(f"amount: {amount!r} is not a number") from None
    try:
        effective_on = dt.date.fromisoformat(effective) if effective else today()
    except ValueError:
        raise click.ClickException(f"from: {effective!r} is not a date (YYYY-MM-DD)") from None
    try:
        credential = bonus_credential(session, code)
        bonus = set_bonus(
            session, credential, value, renewals, effective_on=effective_on, today=today()
        )
    except ValidationError as exc:
        raise _fail(exc) from None
    session.commit()
    renewal = "renewals earn it too" if bonus.renewals_earn else "renewals do not earn it"
    click.echo(
        f"{credential.code}: bonus {bonus.amount:.2f} ({renewal}), "
        f"for certifications passed {since(bonus)}"
    )


@bonus_cli.command("list")
@click.option("--history", is_flag=True, help="Every amount ever set, not only the current ones.")
def bonus_list(history: bool) -> None:
    """List the bonus set per certification: amount, renewals, from when."""
    for bonus in bonuses(db_session(), history=history):
        renewal = "renewals earn" if bonus.renewals_earn else "first pass only"
        click.echo(f"{bonus.credential.code}\t{bonus.amount:.2f}\t{renewal}\t{since(bonus)}")


@bonus_cli.command("ledger")
@click.argument("quarter", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def bonus_ledger(quarter: str | None, as_json: bool) -> None:
    """Print the bonuses earned in QUARTER (YYYY-Qn; default: this quarter)."""
    try:
        period = Quarter.parse(quarter) if quarter else Quarter.of(today())
    except ValidationError as exc:
        raise _fail(exc) from None
    rows = ledger(db_session(), period)
    if as_json:
        from tracker.careers.schemas import ledger_json

        click.echo(json.dumps(ledger_json(period, rows), indent=2))
        return
    for row in rows:
        renewal = " (renewal)" if row.renewal else ""
        click.echo(
            f"{row.passed_on.isoformat()}\t{row.engineer.email}\t{row.credential.code}"
            f"{renewal}\t{row.amount:.2f}"
        )
    total = sum((r.amount for r in rows), Decimal(0))
    click.echo(f"{period}: {len(rows)} bonus{'' if len(rows) == 1 else 'es'}, {total:.2f} in all")
