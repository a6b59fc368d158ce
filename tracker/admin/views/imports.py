"""CSV imports of history: people, hours, attempts, credentials and badges, all or nothing."""

from __future__ import annotations

from flask import flash, redirect, render_template, url_for
from flask_babel import ngettext

from tracker.admin.forms import ImportForm
from tracker.admin.views.blueprint import bp, form_status, signed_in_person
from tracker.badges.views import badge_fetch
from tracker.clock import today
from tracker.db import release
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import choices, show_errors
from tracker.imports.services.kinds import ImportRefused, RowError
from tracker.imports.services.reading import decode_csv
from tracker.imports.services.run import IMPORT_KINDS, check_badges, import_csv
from tracker.web.language import localized
from tracker.web.roles import role_required


@bp.route("/imports", methods=["GET", "POST"])
@role_required("admin")
def imports():
    """Import people, hour logs, exam attempts or external credentials from a CSV file."""
    form = ImportForm()
    form.kind.choices = choices((k.code, localized(k.label)) for k in IMPORT_KINDS.values())
    row_errors: list[RowError] = []
    if form.validate_on_submit():
        try:
            text = decode_csv(form.file.data.read())
            session = db_session()
            release(session)  # nothing held while badges' issuers answer
            checks = check_badges(form.kind.data, text, today(), badge_fetch())
            result = import_csv(
                session,
                form.kind.data,
                text,
                today(),
                actor=signed_in_person(),
                check_only=form.check_only.data,
                checks=checks,
            )
        except ImportRefused as exc:
            row_errors = exc.errors
            bad_lines = len({e.line for e in row_errors})
            form.file.errors = [
                *form.file.errors,
                ngettext(
                    "%(num)d row breaks a rule (listed below); nothing was imported",
                    "%(num)d rows break a rule (listed below); nothing was imported",
                    bad_lines,
                ),
            ]
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            flash(localized(result.summary), "success")
            if not result.checked:
                return redirect(url_for("admin.imports"))
            # Checked: the page again, its choices kept, for the same file to be imported.
            return render_template(
                "admin/imports.html", form=form, kinds=IMPORT_KINDS.values(), row_errors=[]
            )
    return render_template(
        "admin/imports.html",
        form=form,
        kinds=IMPORT_KINDS.values(),
        row_errors=row_errors,
    ), form_status(form)
