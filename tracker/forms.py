"""Fields, choices and validators shared by every feature's forms, and edit forms' versions."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from babel.numbers import format_decimal
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel.speaklater import LazyString
from flask_wtf import FlaskForm
from itsdangerous import BadData, URLSafeSerializer
from markupsafe import Markup, escape
from wtforms import DateField, DecimalField, Field, Form, IntegerField, SelectField, validators
from wtforms.fields.choices import SelectChoice
from wtforms.validators import NumberRange, StopValidation, ValidationError
from wtforms.widgets import Select, TextInput

from tracker.errors import ValidationError as DomainError
from tracker.extensions import secret_keys
from tracker.i18n import (
    N_,
    Message,
    amount,
    day,
    format_hours,
    grouped,
    msg,
    read_decimal,
    read_whole,
)
from tracker.versions import version
from tracker.web.language import current_locale, localized, localized_errors

# The choice that leaves an optional select empty (optional_id reads it as None).
NO_CHOICE = ("", _l("— none —"))
NOT_LISTED = _l("choose one of the listed options")


def stripped(value: object) -> object:
    """A field filter: text without the spaces around it (as pasted from a mail or a sheet)."""
    return value.strip() if isinstance(value, str) else value


def optional_id(value: str | int | None) -> int | None:
    """Coerce a select's value to an id; the empty choice is None."""
    if value is None or value in ("", "None"):
        return None
    return int(value)


class ChosenSelect(Select):
    """Draw a select; one opening on a real choice is required to ARIA, not to HTML.

    HTML allows `required` on a single select only when its first option is an
    empty placeholder. A select opening on a real choice always sends a value, so
    there the attribute is invalid and adds nothing; `aria-required` still tells
    screen readers what the label's asterisk shows. The server validates as before.
    """

    def __call__(self, field: Field, **kwargs: Any) -> Markup:
        first = next(iter(field.iter_choices()), None)
        if (
            not self.multiple
            and "required" not in kwargs
            and field.flags.required
            and first is not None
            and first.value not in ("", None)
        ):
            kwargs["required"] = False
            kwargs.setdefault("aria-required", "true")
        return super().__call__(field, **kwargs)


class _Later(LazyString):
    """A domain message translated when shown, escaped like any text (LazyString's is not)."""

    def __html__(self) -> Markup:
        return escape(str(self))


def shown_later(text: str) -> str:
    """Return a domain message that a form shows in the language of the request showing it."""
    if isinstance(text, Message):
        return _Later(localized, text)
    return text


def ListedChoice(label: str, not_listed: str = NOT_LISTED, **kw: Any) -> SelectField:
    """A select whose value must be one of its choices; the message names the rule."""
    kw.setdefault("widget", ChosenSelect())
    refusal = shown_later(not_listed)
    return SelectField(label, invalid_value_message=refusal, invalid_choice_message=refusal, **kw)


def choices(pairs: Iterable[tuple[Any, Any]]) -> list[SelectChoice]:
    """Return (value, label) pairs as WTForms choices."""
    return [SelectChoice(value=value, label=label) for value, label in pairs]


def named(template: str, field: Field, **params: object) -> str:
    """Return a refusal in the request's language, `%(label)s` standing for the field's label.

    The templates quote the label as each language quotes (“Hours” in English,
    «Horas» in Spanish): a label is a name, not the subject of the sentence.
    """
    return localized(msg(template, label=str(field.label.text), **params))


class _NamedRefusal:
    """A field whose refusal of what it cannot read names the field and what it takes."""

    refusal: str  # marked with N_, "%(label)s" standing for the field's label
    label: Any

    def refused(self) -> ValueError:
        """Return the refusal of what the field cannot read, in the request's language."""
        return ValueError(named(self.refusal, self))

    def process_formdata(self, valuelist: list[Any]) -> None:
        try:
            super().process_formdata(valuelist)  # type: ignore[misc]
        except ValueError:
            raise self.refused() from None


class WholeField(_NamedRefusal, IntegerField):
    """A whole number typed as the reader writes it (1.000 in Spanish, 1,000 in English).

    A text box with a numeric keypad, not `type=number`: a number box refuses
    or drops the grouping a page shows (2.048 GPU) before the server sees it.
    Its refusal of what is not a whole number names the field.
    """

    refusal = N_("“%(label)s” must be a whole number")
    widget = TextInput()
    data: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        render_kw = {"inputmode": "numeric", **kwargs.pop("render_kw", {})}
        super().__init__(*args, render_kw=render_kw, **kwargs)

    def process_formdata(self, valuelist: list[Any]) -> None:
        if not valuelist:
            return
        try:
            self.data = read_whole(str(valuelist[0]), current_locale())
        except ValueError:
            self.data = None
            raise self.refused() from None


class DayField(_NamedRefusal, DateField):
    """A DateField whose refusal of what is not a date names the field and the format."""

    refusal = N_("“%(label)s” must be a date written YYYY-MM-DD (2026-03-31)")
    data: Any


class LocalDecimalField(DecimalField):
    """A decimal typed as the reader writes numbers (1,5 in Spanish, 1.5 in English).

    A text box with a decimal keypad, not `type=number`: a browser reads a
    number box by its own language, and an English one drops the comma of a
    Spanish reader's 1,5 and sends 15. `example` is a number the field takes,
    shown in the reader's way when what was typed is no number.
    """

    widget = TextInput()
    data: Any

    def __init__(self, *args: Any, example: Decimal = Decimal("1234.5"), **kwargs: Any) -> None:
        # A text box takes no step, min or max: the validators say the rule.
        render_kw = {"inputmode": "decimal", "autocomplete": "off", **kwargs.pop("render_kw", {})}
        super().__init__(*args, render_kw=render_kw, **kwargs)
        self.example = example

    def process_formdata(self, valuelist: list[Any]) -> None:
        if not valuelist or not str(valuelist[0]).strip():
            self.data = None
            return
        locale = current_locale()
        try:
            self.data = read_decimal(str(valuelist[0]), locale)
        except ValueError:
            self.data = None
            template = N_("“%(label)s” must be a number, written like %(example)s")
            example = format_hours(self.example, locale)
            raise ValueError(named(template, self, example=example)) from None

    def _value(self) -> str:
        if self.raw_data:
            return str(self.raw_data[0])
        if self.data is None:
            return ""
        # As the reader writes it, without grouping: 1,5 in Spanish.
        exact = Decimal(self.data).normalize()
        places = max(0, -int(exact.as_tuple().exponent))
        pattern = "0." + "#" * places if places else "0"
        return format_decimal(exact, format=pattern, locale=current_locale())


# --- WTForms' validators, their refusals naming the field ---------------------------------


class _NamedRequired:
    """A required-validator whose refusal, unless given a message, names the field."""

    message: Any

    def __call__(self, form: Form, field: Field) -> None:
        try:
            super().__call__(form, field)  # type: ignore[misc]
        except StopValidation:
            if self.message is not None:
                raise
            raise StopValidation(named(N_("“%(label)s” is required"), field)) from None


class DataRequired(_NamedRequired, validators.DataRequired):
    """WTForms' DataRequired (text of spaces alone is none), naming the field it refuses."""


class InputRequired(_NamedRequired, validators.InputRequired):
    """WTForms' InputRequired (something was sent), naming the field it refuses."""


class Length(validators.Length):
    """WTForms' Length; unless given a message, its refusal names the field and the bounds."""

    def __call__(self, form: Form, field: Field) -> None:
        try:
            super().__call__(form, field)
        except ValidationError:
            if self.message is not None:
                raise
            if self.min <= 0:
                template = N_("“%(label)s” must be at most %(max)s characters")
            elif self.max < 0:
                template = N_("“%(label)s” must be at least %(min)s characters")
            else:
                template = N_("“%(label)s” must be %(min)s to %(max)s characters")
            bounds = {"min": grouped(self.min), "max": grouped(self.max)}
            raise ValidationError(named(template, field, **bounds)) from None


class WholeRange(NumberRange):
    """NumberRange for an IntegerField, whose whole numbers it compares exactly.

    NumberRange first asks math.isnan, which turns the number into a float: one
    of more than 308 digits then raised OverflowError instead of being out of range.
    """

    def __init__(self, min: int | None = None, max: int | None = None, *, message: Any) -> None:
        super().__init__(min=min, max=max, message=message)

    def __call__(self, form: Form, field: Field) -> None:
        if field.process_errors:
            return  # not a whole number: the field said so already
        value = field.data
        if isinstance(value, int):
            low, high = self._resolve(self.min), self._resolve(self.max)
            if (low is None or value >= low) and (high is None or value <= high):
                return
            raise ValidationError(str(self.message) % {"min": low, "max": high})
        super().__call__(form, field)


class DecimalRange:
    """Check a DecimalField: a finite number, at most `places` decimals, within bounds.

    WTForms' NumberRange compares with floats and chokes on NaN and infinity;
    this compares Decimals exactly, so 0.01 passes "more than 0". The messages
    name the field by its label, as its refusal of what is no number does.
    """

    def __init__(
        self,
        *,
        places: int,
        minimum: Decimal | None = None,
        above: Decimal | None = None,
        maximum: Decimal | None = None,
    ) -> None:
        self.places = places
        self.minimum = minimum
        self.above = above
        self.maximum = maximum

    def __call__(self, form: object, field: Field) -> None:
        value = field.data
        if value is None or field.process_errors:
            return
        try:
            if not isinstance(value, Decimal) or not value.is_finite():
                raise InvalidOperation
            exact = value == value.quantize(Decimal(1).scaleb(-self.places))
        except InvalidOperation:
            raise ValidationError(self._say(N_("“%(label)s” must be a number"), field)) from None
        if self.above is not None and value <= self.above:
            raise ValidationError(self._range(field))
        if self.minimum is not None and value < self.minimum:
            raise ValidationError(self._range(field))
        if self.maximum is not None and value > self.maximum:
            raise ValidationError(self._range(field))
        if not exact:
            raise ValidationError(
                self._say(N_("“%(label)s” must have at most %(places)s decimals"), field)
            )

    def _say(self, template: str, field: Field) -> str:
        """Return `template` with the label and bounds filled in, in the request's language."""
        bounds = {
            name: amount(bound)
            for name, bound in (
                ("above", self.above),
                ("minimum", self.minimum),
                ("maximum", self.maximum),
            )
            if bound is not None
        }
        return named(template, field, places=self.places, **bounds)

    def _range(self, field: Field) -> str:
        # One whole sentence per pair of bounds, so a translation need not glue parts.
        if self.above is not None and self.maximum is not None:
            template = N_("“%(label)s” must be more than %(above)s and at most %(maximum)s")
        elif self.minimum is not None and self.maximum is not None:
            template = N_("“%(label)s” must be at least %(minimum)s and at most %(maximum)s")
        elif self.above is not None:
            template = N_("“%(label)s” must be more than %(above)s")
        elif self.minimum is not None:
            template = N_("“%(label)s” must be at least %(minimum)s")
        else:
            template = N_("“%(label)s” must be at most %(maximum)s")
        return self._say(template, field)


def show_errors(form: Form, exc: DomainError, mapping: dict[str, str] | None = None) -> None:
    """Put each service error next to its field (renamed by `mapping`), or above the form."""
    for key, message in localized_errors(exc.errors).items():
        field = form._fields.get((mapping or {}).get(key, key))
        if field is not None:
            field.errors = [*field.errors, message]
        else:
            form.form_errors.append(message)


# --- edit forms' versions ---------------------------------------------------------
# An edit page draws the record's values into its form together with a hidden
# `version`: those values, signed. Saving compares them with what the record
# holds now (tracker.versions, as the API's If-Match does); if someone changed
# the record since the page was drawn, nothing is written, the form comes back
# (409) with the reader's own values and a message naming each field that changed
# and what it holds now, and it carries the record's new version, so that saving
# again goes through.

VERSION_SALT = "tracker.record-version"
# Set on a form whose record changed since it was drawn: its page answers 409.
CHANGED = "changed_since_drawn"


def _signer() -> URLSafeSerializer:
    return URLSafeSerializer(secret_keys().for_itsdangerous(), salt=VERSION_SALT)


def _said(values: Mapping[str, Any]) -> dict[str, Any]:
    """Return a record's values as JSON says them (dates, amounts as text)."""
    return dict(json.loads(json.dumps(dict(values), default=str)))


def draw(form: FlaskForm, values: Mapping[str, Any]) -> None:
    """Fill `form` with the record's values (by field name) and carry their version."""
    for name, value in values.items():
        form[name].data = value
    form.version.data = _signer().dumps(_said(values))


def unchanged_since_drawn(form: FlaskForm, values: Mapping[str, Any]) -> bool:
    """Return whether the record still holds what the page drew; if not, tell the form so.

    A form sent without a version (a script's) saves as before. One whose version
    cannot be read is treated as drawn from nothing: every field is named.
    """
    token = form.version.data
    if not token:
        return True
    now = _said(values)
    try:
        drawn = _signer().loads(token)
    except BadData:
        drawn = {}
    if not isinstance(drawn, dict):
        drawn = {}
    if version(drawn) == version(now):
        return True
    changed = [
        _("%(field)s: now %(value)s", field=form[name].label.text, value=_shown(form[name], value))
        for name, value in values.items()
        if drawn.get(name, object()) != now[name]
    ]
    form.form_errors.append(
        _(
            "Someone changed this record since you opened the page, and nothing was saved."
            " It now holds: %(changes)s. Your values are kept below: check them and save again.",
            changes="; ".join(changed),
        )
    )
    form.version.data = _signer().dumps(now)
    setattr(form, CHANGED, True)
    return False


def page_status(form: FlaskForm) -> int:
    """Return the status of an edit page: 200 drawn, 409 its record changed, 400 refused."""
    if not form.is_submitted():
        return 200
    return 409 if getattr(form, CHANGED, False) else 400


def _shown(field: Field, value: Any) -> str:
    """Return a value as the field offers it: a choice's label, a date or hours as written."""
    if value is None or value == "" or value == []:
        return str(NO_CHOICE[1])
    if isinstance(field, SelectField):
        chosen = {str(v) for v in value} if isinstance(value, list) else {str(value)}
        pairs = (
            (c.value, c.label) if isinstance(c, SelectChoice) else (c[0], c[1])
            for c in field.choices or ()
        )
        labels = [str(label) for key, label in pairs if str(key) in chosen]
        return ", ".join(labels) or ", ".join(sorted(chosen))
    if isinstance(value, dt.date):
        return localized(day(value))
    if isinstance(value, Decimal):
        return localized(amount(value))
    return str(value)
