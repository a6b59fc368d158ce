"""The credentials page: record a credential earned elsewhere, list the engineer's own."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user, login_required
from sqlalchemy import select

from tracker.catalog.models.credentials import Credential
from tracker.clock import today
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import show_errors
from tracker.progress.forms import CredentialForm
from tracker.progress.services.certifications import (
    certifications_of,
    credential_for_entry,
    record_credential,
)
from tracker.progress.services.validity import status_on
from tracker.progress.views.blueprint import (
    bp,
    flashed_day,
    for_whom,
    people_for_results,
    person_for_results,
    row_or_404,
)
from tracker.signals import showing_credentials, template_context
from tracker.web.filters import named

OTHER = 0  # the "Other" choice of the credential form
OTHER_LABEL = _l("Other (enter name and issuer)")


@bp.route("/credentials", methods=["GET", "POST"])
@login_required
def credentials():
    """Record a credential earned elsewhere; list the engineer's certifications."""
    session = db_session()
    form = CredentialForm()
    form.engineer.choices = [(e.id, e.name) for e in people_for_results(session)]
    catalog = session.scalars(
        select(Credential)
        .where(Credential.kind.in_(("external", "exam")), Credential.origin != "engineer")
        .order_by(Credential.kind.desc(), Credential.name)
    ).all()
    form.credential.choices = [(c.id, f"{named(c)} ({named(c, 'issuer')})") for c in catalog]
    form.credential.choices.append((OTHER, OTHER_LABEL))
    if request.method == "GET":
        form.engineer.data = current_user.id
    status = 200
    if form.validate_on_submit():
        person = person_for_results(form.engineer.data)
        try:
            if form.credential.data == OTHER:
                credential = credential_for_entry(
                    session, name=form.name.data, issuer=form.issuer.data
                )
            else:
                credential = row_or_404(Credential, form.credential.data)
            cert = record_credential(
                session,
                person,
                credential,
                form.issued_on.data,
                today(),
                evidence=form.evidence.data or "",
                expires_on=form.expires_on.data,
                recorded_by=current_user,
            )
        except ValidationError as exc:
            show_errors(form, exc, {"code": "credential"})
        else:
            if cert.expires_on is not None:
                recorded = _(
                    "%(credential)s recorded, valid through %(date)s.",
                    credential=named(credential),
                    date=flashed_day(cert.expires_on),
                )
            else:
                recorded = _("%(credential)s recorded.", credential=named(credential))
            flash(for_whom(person, recorded), "success")
            return redirect(url_for("progress.credentials"))
    if form.is_submitted():
        status = 400
    held = sorted(
        certifications_of(session, current_user.id), key=lambda c: (c.earned_on, c.id), reverse=True
    )
    return render_template(
        "progress/credentials.html",
        form=form,
        held=held,
        on=today(),
        status_on=status_on,
        **template_context(showing_credentials, current_user._get_current_object(), held=held),
    ), status
