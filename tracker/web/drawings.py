"""Macros drawn once per set of arguments and remembered: what a page repeats, drawn once.

A macro call costs many times a dictionary lookup, and a page draws the same
heat cell, badge or menu hundreds of times a minute. The macro stays the one
drawing of the thing; a `Drawings` remembers what it drew for each set of
arguments, in each language.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from flask import Flask
from markupsafe import Markup
from wtforms import Field, Form

from tracker.web.language import current_locale


class Drawings:
    """Remember up to `kept` drawings of an app's macros; forget them all when full."""

    def __init__(self, app: Flask, kept: int) -> None:
        self.env = app.jinja_env
        self.kept = kept
        self.drawn: dict[Hashable, Markup] = {}

    def macro(self, template: str, name: str) -> Callable[..., str]:
        """Return macro `name` of `template`."""
        macro: Callable[..., str] = getattr(self.env.get_template(template).module, name)
        return macro

    def draw(self, template: str, name: str, *args: Hashable, locale: str | None = None) -> Markup:
        """Return macro `name` of `template` drawn with `args`, in the page's language."""
        return self.remembered(
            (template, name, *args), lambda: self.macro(template, name)(*args), locale
        )

    def remembered(
        self, key: Hashable, draw: Callable[[], str], locale: str | None = None
    ) -> Markup:
        """Return what `draw()` draws, drawn once per `key` and language."""
        key = (locale or current_locale(), key)
        markup = self.drawn.get(key)
        if markup is None:
            if len(self.drawn) >= self.kept or self.env.auto_reload:
                self.drawn.clear()  # templates may change under a reloading server
            markup = self.drawn[key] = Markup(draw())
        return markup


# A query form's drawings remembered: one per language, page and query.
QUERY_FORMS_KEPT = 1024


def _field_state(field: Field) -> Hashable:
    """Return what a query form field's drawing depends on, beside its class and language."""
    raw = tuple(field.raw_data) if field.raw_data else None
    return (field.name, repr(field.data), raw, repr(getattr(field, "choices", None)))


@dataclass(frozen=True)
class BlankQuery:
    """A page's query form when nothing is asked: built only when its drawing is not kept.

    `key` holds what the blank form's drawing depends on beside its page and
    language (the choices' source, such as the catalog's stamp).
    """

    make: Callable[[], Form]
    key: Hashable


def add_drawings(app: Flask) -> None:
    """Give templates `query_form(form, action, submit)`: a GET form of a page's query."""
    forms = Drawings(app, QUERY_FORMS_KEPT)

    def query_form(form: Form | BlankQuery, action: str, submit: str) -> Markup:
        # A page's query form (its filters, fleet and day) is drawn again for
        # every view of the page; without errors, it is what its fields hold.
        def draw(form: Form) -> str:
            render_form = forms.macro("_macros/forms.html", "render_form")
            return render_form(
                form, action=action, submit=submit, method="get", extra_class="grid inline-query"
            )

        if isinstance(form, BlankQuery):
            blank = form

            def draw_blank() -> str:
                made = blank.make()
                if getattr(made.meta, "csrf", False):
                    raise TypeError("a query form with a CSRF token cannot be drawn blank")
                return draw(made)

            return forms.remembered(("blank", blank.key, action, str(submit)), draw_blank)

        # A form with a CSRF token holds the session's own secret: never shared.
        if form.errors or form.form_errors or getattr(form.meta, "csrf", False):
            return Markup(draw(form))
        key = (type(form).__qualname__, action, str(submit), *map(_field_state, form))
        return forms.remembered(key, lambda: draw(form))

    app.jinja_env.globals["query_form"] = query_form
