"""The shared form helpers draw valid HTML and validate as they did."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Iterator
from decimal import Decimal

import pytest
from flask_babel import lazy_gettext as _l
from flask_babel.speaklater import LazyString
from flask_wtf import FlaskForm
from werkzeug.datastructures import MultiDict
from wtforms import (
    BooleanField,
    DateField,
    DecimalField,
    Field,
    FieldList,
    Form,
    FormField,
    HiddenField,
    IntegerField,
    SelectField,
    StringField,
)
from wtforms.csrf.core import CSRFTokenField
from wtforms.fields.choices import SelectFieldBase
from wtforms.validators import InputRequired, Length, Optional

import tracker
from tests.helpers import ENGLISH, SPANISH
from tracker.catalog.rules import LEVEL_RULE
from tracker.forms import (
    ChosenSelect,
    DayField,
    DecimalRange,
    ListedChoice,
    LocalDecimalField,
    WholeField,
    WholeRange,
    choices,
    draw,
    optional_id,
    read_decimal,
    read_whole,
    unchanged_since_drawn,
)


class Scene(Form):
    kind = ListedChoice(
        "Kind",
        choices=choices([("patent", "Patent"), ("talk", "Talk")]),
        validators=[InputRequired(message="a kind is required")],
    )
    team = ListedChoice(
        "Team",
        coerce=optional_id,
        choices=choices([("", "— none —"), (1, "Borealis")]),
        validators=[InputRequired(message="a team is required")],
    )
    course = SelectField(
        "Course",
        coerce=int,
        choices=choices([(7, "Cluster ops")]),
        validators=[InputRequired()],
        widget=ChosenSelect(),
    )
    note = ListedChoice("Note", choices=choices([("a", "A")]), validators=[Optional()])


def test_a_required_select_opening_on_a_real_choice_is_required_to_aria_not_to_html() -> None:
    # HTML allows `required` on a select only when its first option is an empty placeholder.
    form = Scene()
    for field in (form.kind, form.course):
        html = str(field())
        assert " required" not in html
        assert 'aria-required="true"' in html
    assert "required" not in str(form.note())


def test_a_required_select_opening_on_a_placeholder_keeps_required() -> None:
    html = str(Scene().team())
    assert " required" in html
    assert "aria-required" not in html


def test_the_server_still_refuses_a_required_select_sent_blank() -> None:
    form = Scene(MultiDict({"kind": "", "team": "", "course": ""}))
    assert not form.validate()
    assert "a kind is required" in form.kind.errors
    assert "a team is required" in form.team.errors
    assert form.course.errors
    ok = Scene(MultiDict({"kind": "talk", "team": "1", "course": "7"}))
    assert ok.validate(), ok.errors


class Fleet(Form):
    gpus = IntegerField(
        "GPUs",
        validators=[InputRequired(), WholeRange(min=0, max=100, message="from %(min)s to %(max)s")],
    )


@pytest.mark.parametrize(
    ("sent", "error"),
    [
        ("0", None),
        ("100", None),
        ("101", "from 0 to 100"),
        ("-1", "from 0 to 100"),
        # No float holds these: they are out of range all the same.
        ("9" * 400, "from 0 to 100"),
        ("-" + "9" * 400, "from 0 to 100"),
    ],
)
def test_a_whole_number_of_any_length_is_checked_against_its_range(sent, error) -> None:
    form = Fleet(MultiDict({"gpus": sent}))
    assert form.validate() is (error is None)
    assert form.gpus.errors == ([error] if error else [])


def test_a_form_posting_to_its_own_page_has_no_empty_action(client) -> None:
    # HTML forbids action=""; without the attribute the form posts to the page itself.
    html = client.get("/login").get_data(as_text=True)
    assert '<form method="post" class=' in html
    assert 'action=""' not in html


# --- the shared validators' messages, in the request's language --------------------------


class Amounts(Form):
    hours = DecimalField(
        _l("Hours"),
        places=None,
        validators=[DecimalRange(places=2, above=Decimal(0), maximum=Decimal(24))],
    )
    cost = DecimalField(
        "Cost",
        places=None,
        validators=[DecimalRange(places=2, minimum=Decimal(0), maximum=Decimal(1_000_000))],
    )
    level = ListedChoice("Level", choices=choices([(1, "1")]), not_listed=LEVEL_RULE)


BAD_AMOUNTS = MultiDict({"hours": "30", "cost": "1.234", "level": "9"})


def test_the_shared_validators_keep_their_english(app) -> None:
    with app.test_request_context("/", headers=ENGLISH):
        form = Amounts(BAD_AMOUNTS)
        assert not form.validate()
        # The field named by its label, quoted: as its refusal of what is no number names it.
        assert form.hours.errors == ["“Hours” must be more than 0 and at most 24"]
        assert form.cost.errors == ["“Cost” must have at most 2 decimals"]
        assert [str(e) for e in form.level.errors] == ["level must be from 1 to 5"]


def test_the_shared_validators_speak_the_requests_language(app) -> None:
    with app.test_request_context("/", headers=SPANISH):
        form = Amounts(MultiDict({**BAD_AMOUNTS, "cost": "2000000"}))
        assert not form.validate()
        assert form.hours.errors == ["«Horas» debe ser mayor que 0 y como máximo 24"]
        # The bound in the locale's digits; a label given as plain text stays as it is.
        assert form.cost.errors == ["«Cost» debe ser como mínimo 0 y como máximo 1.000.000"]
        # A domain rule given as a select's refusal is shown in the request's language.
        assert [str(e) for e in form.level.errors] == ["el nivel debe estar entre 1 y 5"]


class Typed(Form):
    hours = LocalDecimalField("Hours", validators=[Optional()])
    cost = LocalDecimalField("Cost", validators=[Optional()], example=Decimal("1200.5"))
    gpus = WholeField("GPUs", validators=[Optional(), WholeRange(min=0, max=10, message="x")])
    on = DayField("On date", validators=[Optional()])


@pytest.mark.parametrize(
    ("locale", "typed", "read"),
    [
        ("es", "1,5", Decimal("1.5")),
        ("es", "1.234,5", Decimal("1234.5")),
        ("es", "1.500", Decimal("1500")),  # grouped thousands, as Spanish groups them
        ("es", " 0,25 ", Decimal("0.25")),
        ("es", "2.5", Decimal("2.5")),  # one mark, digits after: no language groups so
        ("en", "1.5", Decimal("1.5")),
        ("en", "1,234.5", Decimal("1234.5")),
        ("en", "1,500", Decimal("1500")),
        ("en", "1,5", Decimal("1.5")),  # a Spanish reader on an English browser
        ("en", "1 234.5", Decimal("1234.5")),
    ],
)
def test_a_decimal_is_read_as_the_reader_writes_it(locale, typed, read) -> None:
    assert read_decimal(typed, locale) == read


@pytest.mark.parametrize("typed", ["abc", "1,234.5,6", "1.2.3", "", "1,5,"])
def test_what_is_no_number_in_either_language_is_refused(typed) -> None:
    for locale in ("en", "es"):
        with pytest.raises(ValueError):
            read_decimal(typed, locale)


@pytest.mark.parametrize(
    ("locale", "typed", "read"),
    [
        ("es", "1000", 1000),
        ("es", "1.000", 1000),  # grouped as Spanish pages show it: 2.048 GPU
        ("es", "12.345.678", 12345678),
        ("es", " 2 048 ", 2048),
        ("es", "-1.000", -1000),
        ("en", "1,000", 1000),
        ("en", "12,345,678", 12345678),
        ("en", "0", 0),
    ],
)
def test_a_whole_number_is_read_as_the_reader_writes_it(locale, typed, read) -> None:
    assert read_whole(typed, locale) == read


@pytest.mark.parametrize(
    ("locale", "typed"),
    [
        ("es", "1.00"),  # groups are of three digits
        ("es", "1.0000"),
        ("es", "1,000"),  # a decimal in Spanish
        ("es", "1.000,5"),
        ("es", ".000"),
        ("en", "1.000"),  # a decimal in English
        ("en", "1,00"),
        ("en", "1_000"),
        ("en", "1.5"),
        ("en", ""),
    ],
)
def test_what_is_no_whole_number_in_the_readers_language_is_refused(locale, typed) -> None:
    with pytest.raises(ValueError):
        read_whole(typed, locale)


def test_a_whole_field_reads_the_readers_grouping_in_a_text_box(app) -> None:
    with app.test_request_context("/", headers=SPANISH):
        form = Typed(MultiDict({"gpus": "1.000"}))
        assert not form.validate()  # read, then held to its range
        assert form.gpus.data == 1000
        assert form.gpus.errors == ["x"]
        # A number box would refuse or drop the grouping before the server saw it.
        drawn = form.gpus()
        assert 'type="text"' in drawn and 'inputmode="numeric"' in drawn
        assert 'value="1.000"' in drawn
    with app.test_request_context("/", headers=ENGLISH):
        assert Typed(MultiDict({"gpus": "1,000"})).gpus.data == 1000
        assert Typed(data={"gpus": 7}).gpus().count('value="7"') == 1


def test_a_decimal_field_reads_and_shows_the_readers_numbers(app) -> None:
    with app.test_request_context("/", headers=SPANISH):
        form = Typed(MultiDict({"hours": "1,5"}))
        assert form.validate(), form.errors
        assert form.hours.data == Decimal("1.5")
        # A text box with a decimal keypad, not a number box a browser reads by its own language.
        drawn = form.hours()
        assert 'type="text"' in drawn and 'inputmode="decimal"' in drawn
        assert 'value="1,5"' in drawn
        assert Typed(data={"hours": Decimal("2.50")}).hours().count('value="2,5"') == 1
    with app.test_request_context("/", headers=ENGLISH):
        assert 'value="2.5"' in Typed(data={"hours": Decimal("2.50")}).hours()


def test_what_a_field_cannot_read_is_refused_once_naming_the_field(app) -> None:
    with app.test_request_context("/", headers=ENGLISH):
        form = Typed(MultiDict({"hours": "lots", "cost": "?", "gpus": "many", "on": "soon"}))
        assert not form.validate()
        # The label is quoted: a name, not the subject ("On date must be" reads badly).
        assert form.hours.errors == ["“Hours” must be a number, written like 1,234.5"]
        # An example the field takes, as the reader writes it.
        assert form.cost.errors == ["“Cost” must be a number, written like 1,200.5"]
        # One message, not the reading's and then the range's glued together.
        assert form.gpus.errors == ["“GPUs” must be a whole number"]
        assert form.on.errors == ["“On date” must be a date written YYYY-MM-DD (2026-03-31)"]
    with app.test_request_context("/", headers=SPANISH):
        form = Typed(MultiDict({"hours": "muchas", "cost": "?", "gpus": "2,5", "on": "mañana"}))
        assert not form.validate()
        assert form.hours.errors == ["«Hours» debe ser un número, escrito como 1.234,5"]
        assert form.cost.errors == ["«Cost» debe ser un número, escrito como 1.200,5"]
        assert form.gpus.errors == ["«GPUs» debe ser un número entero"]
        assert form.on.errors == ["«On date» debe ser una fecha escrita AAAA-MM-DD (2026-03-31)"]


# --- every form's refusals name their field ----------------------------------------------

# How each language quotes a label in a refusal.
QUOTED = {"en": "“%s”", "es": "«%s»"}


def every_form() -> list[type[FlaskForm]]:
    """Return every form class of the application."""
    for module in pkgutil.walk_packages(tracker.__path__, "tracker."):
        if module.name.endswith(".forms"):
            importlib.import_module(module.name)
    found, stack = [], [FlaskForm]
    while stack:
        for form in stack.pop().__subclasses__():
            stack.append(form)
            # A private base (_EndpointFields) is completed by the form made from it.
            if form.__module__.startswith("tracker.") and not form.__name__.startswith("_"):
                found.append(form)
    return sorted(found, key=lambda form: f"{form.__module__}.{form.__qualname__}")


def leaves(fields: Iterable[Field]) -> Iterator[Field]:
    """Yield the fields a person fills in, those of repeated and nested forms too."""
    for field in fields:
        if isinstance(field, FieldList):
            yield from leaves(field.entries)
        elif isinstance(field, FormField):
            yield from leaves(field.form)
        elif not isinstance(field, BooleanField | HiddenField | CSRFTokenField):
            yield field


def given(field: Field) -> list[str]:
    """Return the start of each refusal the form's author wrote for `field` (its own words)."""
    messages = [getattr(v, "message", None) for v in field.validators]
    messages += [getattr(field, "invalid_choice_message", None)]
    messages += [getattr(field, "invalid_value_message", None)]
    return [str(m).split("%(")[0] for m in messages if isinstance(m, str | LazyString)]


def longest(field: Field, bound: str) -> int | None:
    """Return the field's Length `bound` ("min" or "max"), None when it has none."""
    for validator in field.validators:
        if isinstance(validator, Length) and getattr(validator, bound) > 0:
            return int(getattr(validator, bound))
    return None


def sent(field: Field, trial: str) -> str:
    """Return what `trial` sends in `field`: nothing, too much, too little, no number or date."""
    if trial == "too long" and (most := longest(field, "max")) is not None:
        return "x" * (most + 1)
    if trial == "too short" and (least := longest(field, "min")) is not None:
        return "x" * (least - 1)
    if trial == "unreadable" and isinstance(field, IntegerField | DecimalField | DateField):
        return "x"
    if trial == "unreadable" and isinstance(field, SelectFieldBase):
        return "not-a-choice"
    return ""


@pytest.mark.parametrize("trial", ["missing", "too long", "too short", "unreadable"])
@pytest.mark.parametrize("locale", ["en", "es"])
def test_every_forms_refusals_name_their_field(app, locale, trial) -> None:
    headers = ENGLISH if locale == "en" else SPANISH
    unnamed = []
    with app.test_request_context("/", method="POST", headers=headers):
        for form_class in every_form():
            blank = form_class(formdata=None)
            data = MultiDict({f.name: sent(f, trial) for f in leaves(blank)})
            form = form_class(formdata=data)
            for field in leaves(form):
                if isinstance(field, SelectFieldBase) and field.choices is None:
                    field.choices = []  # the view fills them from the database
            form.validate()
            for field in leaves(form):
                named = QUOTED[locale] % field.label.text
                own = given(field)
                unnamed += [
                    f"{form_class.__name__}.{field.name}: {error}"
                    for error in field.errors
                    if named not in error and not any(error.startswith(o) for o in own if o)
                ]
    assert not unnamed, "\n".join(unnamed)


# --- an edit form's version and the secret key --------------------------------------


class Versioned(FlaskForm):
    """An edit form: one field and the signed version of what the page drew."""

    name = StringField("Name")
    version = HiddenField()


def _drawn_version(app) -> str:
    """Return the version a page drew for the record {"name": "Ada"}, with the current keys."""
    with app.test_request_context():
        form = Versioned(formdata=None)
        draw(form, {"name": "Ada"})
        return str(form.version.data)


def _unchanged(app, version: str) -> bool:
    with app.test_request_context(method="POST", data={"name": "Ada", "version": version}):
        return unchanged_since_drawn(Versioned(), {"name": "Ada"})


def test_a_version_drawn_before_the_key_was_rotated_still_reads(app, request) -> None:
    version = _drawn_version(app)
    request.getfixturevalue("rotated")
    assert _unchanged(app, version)


def test_without_the_fallback_a_version_of_the_old_key_reads_as_drawn_from_nothing(
    app, request
) -> None:
    version = _drawn_version(app)
    request.getfixturevalue("replaced")
    assert not _unchanged(app, version)
