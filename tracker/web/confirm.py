"""The page every destructive button leads to: what will happen, what stays, go or go back.

The app runs no script, so a button cannot ask "are you sure?" by itself: it is
a link (GET) to this page, and this page's button posts to the same URL with its
CSRF token, the one POST a form of the old one-click kind sent. Callers that post
directly (scripts, tests) are answered as before.
"""

from __future__ import annotations

from flask import render_template
from flask_wtf import FlaskForm


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
