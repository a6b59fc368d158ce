"""The internal track's refusals (tracker.catalog.services.internal_track), in each language."""

from __future__ import annotations

import pytest

from tracker.catalog.services.internal_track import code_taken, create_internal_track
from tracker.errors import ValidationError
from tracker.i18n import translate, translate_errors


def test_the_internal_tracks_refusals_read_in_english_and_in_spanish(db):
    with pytest.raises(ValidationError) as refused:
        create_internal_track(
            db,
            exam_code="ACME-OPS",
            exam_name="Acme operations",
            validity_months=0,
            courses="ACME-101 | Runbook\nGPU-ARCH | Ours | 1.125",
            path_code="ACME-PATH",
            path_name="Acme path",
            target_months=3,
        )
    errors = refused.value.errors
    assert errors["courses"] == (
        "line 1: write CODE | Title | hours; line 2: hours must have at most 2 decimals"
    )
    assert errors["validity_months"] == "validity must be a whole number of months from 1 to 120"
    spanish = translate_errors(errors, "es")
    assert spanish["courses"] == (
        "línea 1: escribir CÓDIGO | Título | horas; "
        "línea 2: las horas deben tener como máximo 2 decimales"
    )
    assert spanish["validity_months"] == (
        "la vigencia debe ser un número entero de meses entre 1 y 120"
    )
    assert translate(code_taken(db, "gpu-arch") or "", "es") == "GPU-ARCH ya lo usa un curso"
