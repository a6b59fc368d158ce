"""A lapse's impact: kept as English text, read back to be shown in each reader's language."""

from __future__ import annotations

import pytest

from tracker.i18n import translate
from tracker.readiness.services.lapses import impact_message

BOTH = "seats no one else can fill: 1 (0/4 instead of 1/4); the team loses its last valid CKA"


def test_a_kept_impact_reads_back_as_the_messages_it_was_written_from():
    message = impact_message(BOTH)
    assert message == BOTH  # its English is the text kept
    assert translate(message, "en") == BOTH
    assert translate(message, "es") == (
        "puestos que nadie más puede cubrir: 1 (0/4 en lugar de 1/4); "
        "el equipo pierde su última certificación CKA válida"
    )


def test_an_impact_kept_in_the_earlier_wording_reads_as_todays():
    kept = "1 seat(s) no one else can fill (0/4 instead of 1/4); the team loses its last valid CKA"
    assert translate(impact_message(kept), "en") == BOTH
    assert translate(impact_message(kept), "es").startswith(
        "puestos que nadie más puede cubrir: 1 "
    )


@pytest.mark.parametrize("kept", ["", "readiness drops somehow", BOTH + "; and more"])
def test_a_text_the_impacts_were_not_written_from_is_shown_as_it_is(kept):
    assert translate(impact_message(kept), "es") == kept
