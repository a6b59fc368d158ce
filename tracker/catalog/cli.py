"""Catalog commands."""

from __future__ import annotations

import json

import click
from flask.cli import with_appcontext

from tracker.catalog.services.reads import catalog_dict
from tracker.extensions import db_session


@click.command("catalog")
@with_appcontext
@click.option("--json", "as_json", is_flag=True, help="Print the catalog as one JSON object.")
def catalog_command(as_json: bool) -> None:
    """Print the loaded catalog."""
    data = catalog_dict(db_session())
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    for path in data["paths"]:
        click.echo(f"{path['name']} ({path['total_hours']} h, exam {path['exam']})")
        for course in path["courses"]:
            click.echo(f"  {course['hours']:>4} h  {course['title']}")
    for exam in data["exams"]:
        prereq = ", ".join(exam["prerequisites"]) or "none"
        click.echo(f"{exam['code']}: valid {exam['validity_months']} months; requires {prereq}")
    for t in data["templates"]:
        click.echo(f"template {t['code']}: {t['slot_total']} slots from {t['min_gpus']} GPUs")
