"""The page every destructive button leads to: what will happen, what stays, go or go back.

The app runs no script, so a button cannot ask "are you sure?" by itself: it is
a link (GET) to this page, and this page's button posts to the same URL with its
CSRF token, the one POST a form of the old one-click kind sent. Callers that post
directly (scripts, tests) are answered as before.

A button on a page of a list names that page in its link (`?back=`, the page
and its filters), so that Cancel and the done action return there; only a path
of this site is followed.
"""

from __future__ import annotations

from flask import render_template, request
from flask_wtf import FlaskForm

from tracker.web.links import same_site_path

# The query argument of a confirmation's URL naming the page its button was on.
BACK = "back"


def back_to(default: str) -> str:
    """Return where a confirmation returns: ?back= when a page of this site, else `default`."""
    return same_site_path(request.args.get(BACK)) or default


def confirmation_page(
    *,
    question: str,
    happens: str,
    kept: str,
    submit: str,
    back: str,
    form: FlaskForm | None = None,
    back_label: str | None = None,
) -> str:
    """Render the confirmation of a destructive action whose POST goes to this page's URL.

    `form` is the button's own form (its CSRF token under its prefix); without one
    the page draws the app's plain token. The POST keeps the page's query string.
    """
    return render_template(
        "confirm.html",
        question=question,
        happens=happens,
        kept=kept,
        submit=submit,
        back=back,
        form=form,
        back_label=back_label,
    )
