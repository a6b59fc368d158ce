"""The shared form helpers draw valid HTML and validate as they did."""

from __future__ import annotations

from werkzeug.datastructures import MultiDict
from wtforms import Form, SelectField
from wtforms.validators import InputRequired, Optional

from tracker.forms import ChosenSelect, ListedChoice, choices, optional_id


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


def test_a_form_posting_to_its_own_page_has_no_empty_action(client) -> None:
    # HTML forbids action=""; without the attribute the form posts to the page itself.
    html = client.get("/login").get_data(as_text=True)
    assert '<form method="post" class=' in html
    assert 'action=""' not in html
