"""The catalog page and the internal certification track an admin defines on it."""

from __future__ import annotations

from flask import flash, redirect, render_template, url_for
from flask_babel import ngettext

from tracker.admin.forms import TrackForm
from tracker.admin.views.blueprint import bp, form_status
from tracker.catalog.services.internal_track import (
    create_internal_track,
    credentials,
    internal_codes,
)
from tracker.catalog.services.reads import catalog_dict
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import choices, show_errors
from tracker.web.filters import named
from tracker.web.language import current_locale
from tracker.web.roles import role_required


@bp.route("/catalog", methods=["GET", "POST"])
@role_required("admin")
def catalog():
    """Show the catalog and create an internal certification track."""
    session = db_session()
    form = TrackForm()
    form.prerequisites.choices = choices(
        (c.code, f"{c.code} · {named(c)}") for c in credentials(session)
    )
    if form.validate_on_submit():
        try:
            path = create_internal_track(
                session,
                exam_code=form.exam_code.data,
                exam_name=form.exam_name.data,
                validity_months=form.validity_months.data,
                prerequisites=form.prerequisites.data,
                experience_months=form.experience_months.data,
                retake_wait_days=form.retake_wait_days.data,
                courses=form.courses.data,
                path_code=form.path_code.data,
                path_name=form.path_name.data,
                target_months=form.target_months.data,
                exam_name_es=form.exam_name_es.data or "",
                path_name_es=form.path_name_es.data or "",
                locale=current_locale(),
            )
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            flash(
                ngettext(
                    "Internal track %(name)s created: %(num)d course ending in exam %(exam)s.",
                    "Internal track %(name)s created: %(num)d courses ending in exam %(exam)s.",
                    len(path.path_courses),
                    name=named(path),
                    exam=form.exam_code.data.strip(),
                ),
                "success",
            )
            return redirect(url_for("admin.catalog"))
    return render_template(
        "admin/catalog.html",
        form=form,
        catalog=catalog_dict(session),
        internal=internal_codes(session),
    ), form_status(form)
