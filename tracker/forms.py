"""Fields, choices and validators shared by every feature's forms."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

from flask_babel import lazy_gettext as _l
from markupsafe import Markup
from wtforms import Field, Form, SelectField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import ValidationError
from wtforms.widgets import Select

from tracker.errors import ValidationError as DomainError
from tracker.web import localized_errors

# The choice that leaves an optional select empty (optional_id reads it as None).
NO_CHOICE = ("", _l("— none —"))


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


def ListedChoice(
    label: str, not_listed: str = "choose one of the listed options", **kw: Any
) -> SelectField:
    """A select whose value must be one of its choices; the message names the rule."""
    kw.setdefault("widget", ChosenSelect())
    return SelectField(
        label, invalid_value_message=not_listed, invalid_choice_message=not_listed, **kw
    )


def choices(pairs: Iterable[tuple[Any, Any]]) -> list[SelectChoice]:
    """Return (value, label) pairs as WTForms choices."""
    return [SelectChoice(value=value, label=label) for value, label in pairs]


class DecimalRange:
    """Check a DecimalField: a finite number, at most `places` decimals, within bounds.

    WTForms' NumberRange compares with floats and chokes on NaN and infinity;
    this compares Decimals exactly, so 0.01 passes "more than 0".
    """

    def __init__(
        self,
        label: str,
        *,
        places: int,
        minimum: Decimal | None = None,
        above: Decimal | None = None,
        maximum: Decimal | None = None,
    ) -> None:
        self.label = label
        self.places = places
        self.minimum = minimum
        self.above = above
        self.maximum = maximum

    def __call__(self, form: object, field: Field) -> None:
        value = field.data
        if value is None:
            return
        try:
            if not isinstance(value, Decimal) or not value.is_finite():
                raise InvalidOperation
            exact = value == value.quantize(Decimal(1).scaleb(-self.places))
        except InvalidOperation:
            raise ValidationError(f"{self.label} must be a number") from None
        if self.above is not None and value <= self.above:
            raise ValidationError(self._range())
        if self.minimum is not None and value < self.minimum:
            raise ValidationError(self._range())
        if self.maximum is not None and value > self.maximum:
            raise ValidationError(self._range())
        if not exact:
            raise ValidationError(f"{self.label} must have at most {self.places} decimals")

    def _range(self) -> str:
        low = (
            f"more than {self.above}"
            if self.above is not None
            else f"at least {self.minimum}"
            if self.minimum is not None
            else None
        )
        high = f"at most {self.maximum}" if self.maximum is not None else None
        return f"{self.label} must be " + " and ".join(p for p in (low, high) if p)


def show_errors(form: Form, exc: DomainError, mapping: dict[str, str] | None = None) -> None:
    """Put each service error next to its field (renamed by `mapping`), or above the form."""
    for key, message in localized_errors(exc.errors).items():
        field = form._fields.get((mapping or {}).get(key, key))
        if field is not None:
            field.errors = [*field.errors, message]
        else:
            form.form_errors.append(message)
