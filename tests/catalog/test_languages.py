"""The catalog's own words in Spanish and English: the seed file, the columns, the pages.

seed/catalog.toml: "the tracker's own words ... are written in English with their
Spanish beside them ...; a missing Spanish is refused, naming the entry and the
field. Spanish readers see the Spanish, everyone else the English. Vendors'
course, exam and credential titles stay as the vendor names them."
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import SEED
from tests.helpers import ENGLISH, SPANISH
from tracker.catalog.models.credentials import Credential, Exam
from tracker.catalog.models.levels import Level
from tracker.catalog.models.planning import RoiLine, TrainingStrategy
from tracker.catalog.models.skills import JobRole, Speciality
from tracker.catalog.models.team_templates import TeamTemplate
from tracker.catalog.schemas import SPANISH_SUFFIX, CredentialEntry, SeedEntry
from tracker.catalog.services.reads import catalog_dict
from tracker.catalog.services.seed_loading import load_seed
from tracker.catalog.services.seed_reading import SeedError, read_seed
from tracker.catalog.services.snapshot import load_snapshot
from tracker.i18n import in_locale

# The article's Spanish names of the ladder's rungs.
ARTICLE_LEVELS = ["Fundamentos", "Operacional", "Profesional", "Experto", "Arquitecto"]
ENGLISH_LEVELS = ["Foundations", "Operational", "Professional", "Expert", "Architect"]


def seed_with(tmp_path: Path, old: str, new: str) -> Path:
    """Write the seed with `old` (which occurs once) replaced by `new`."""
    text = SEED.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in the seed"
    path = tmp_path / "catalog.toml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


# --- the seed file ------------------------------------------------------------------------


def _entries(data) -> list[SeedEntry]:
    entries: list[SeedEntry] = [
        *data.levels,
        *data.job_roles,
        *data.exams,
        *data.credentials,
        *data.groups,
        *data.paths,
        *data.templates,
        *data.strategies,
        *data.roi.investment,
        *data.roi.returns,
        *data.specialities,
    ]
    return entries + [slot for template in data.templates for slot in template.slots]


def test_the_seed_gives_every_wording_its_spanish():
    data = read_seed(SEED)
    assert [lv.name for lv in data.levels] == ENGLISH_LEVELS
    assert [lv.name_es for lv in data.levels] == ARTICLE_LEVELS
    # A credential's name is most often a vendor's title, its issuer a company's
    # name: their Spanish is optional.
    optional = {(CredentialEntry, "name_es"), (CredentialEntry, "issuer_es")}
    checked = 0
    for entry in _entries(data):
        for field in type(entry).model_fields:
            if not field.endswith(SPANISH_SUFFIX) or (type(entry), field) in optional:
                continue
            english = getattr(entry, field.removesuffix(SPANISH_SUFFIX))
            assert getattr(entry, field) or not english, f"{entry.where}: {field} is empty"
            checked += 1
    assert checked > 90
    roles = {r.code: r.name_es for r in data.job_roles}
    assert roles["operations"] == "Ingeniero de Operaciones"
    assert roles["network"] == "Especialista en Redes"
    small = data.templates[0]
    assert small.name_es == "Equipo pequeño (10-100 GPU)"
    assert [s.title_es for s in small.slots] == [
        "Líder de Infraestructura",
        "Ingeniero de Operaciones",
        "Especialista en Redes",
    ]
    assert {s.code: s.name_es for s in data.strategies}["bootcamp"] == "Inmersión bootcamp"
    assert {s.code: s.ramp_up_es for s in data.specialities}["infiniband-rdma"] == "6-12 meses"


def test_vendor_titles_have_no_spanish():
    """Exams and courses keep the vendor's title; an exam's Spanish is how it is taken."""
    data = read_seed(SEED)
    fields = type(data.exams[0]).model_fields
    assert [f for f in fields if f.endswith(SPANISH_SUFFIX)] == ["delivery_es"]
    assert not any(f.endswith(SPANISH_SUFFIX) for f in type(data.courses[0]).model_fields)
    names = {c.code: c.name_es for c in data.credentials}
    assert names["CKA"] == "" and names["NVIDIA-NETWORKING"] == "Certificación de redes NVIDIA"


MISSING: dict[str, tuple[str, str, str]] = {
    "level-name": (
        'name_es = "Operacional"\n',
        "",
        "levels #2 (2): missing field 'name_es' (the Spanish of name 'Operational')",
    ),
    "level-name-blank": (
        'name_es = "Operacional"',
        'name_es = "  "',
        "levels #2 (2): name_es: must be a non-empty text (the Spanish of name 'Operational')",
    ),
    "level-summary": (
        'summary_es = "Diseño de clústeres a gran escala, optimización avanzada, solución de '
        "problemas complejos; despliegues de más de 1000 GPUs, refrigeración personalizada, "
        'frameworks de automatización."\n',
        "",
        "levels #4 (4): missing field 'summary_es' (the Spanish of summary 'Large-cluster design",
    ),
    "job-role": (
        'name_es = "Especialista en Almacenamiento"\n',
        "",
        "job_roles #3 (storage): missing field 'name_es' (the Spanish of name "
        "'Storage Specialist')",
    ),
    "slot-title": (
        ', title_es = "Especialista en Redes", count = 2',
        ", count = 2",
        "templates #2 (medium): slots #4 (Network Specialist): missing field 'title_es'",
    ),
    "strategy-description": (
        'description_es = "Instrucción en sitio, acceso a laboratorios y vouchers de '
        'certificación (NVIDIA, AMD, Intel)."\n',
        "",
        "strategies #3 (vendor-partnership): missing field 'description_es' (the Spanish of "
        "description 'On-site instruction",
    ),
    "roi-label": (
        ', label_es = "Menos tiempo de inactividad"',
        "",
        "roi.returns: roi_lines #1 (downtime): missing field 'label_es'",
    ),
    "speciality-ramp-up": (
        'name = "Liquid cooling"\n',
        'name = "Liquid cooling"\nramp_up = "3 months"\n',
        "specialities #3 (liquid-cooling): missing field 'ramp_up_es' (the Spanish of ramp_up "
        "'3 months')",
    ),
    "exam-delivery": (
        'delivery_es = "en línea, con supervisión remota"\n',
        "",
        "exams #1 (NCA-AIIO): missing field 'delivery_es' (the Spanish of delivery "
        "'online, remotely proctored')",
    ),
    "group-name": (
        'name_es = "CISSP o CCSP"\n',
        "",
        "groups #4 (SECURITY-CERT): missing field 'name_es'",
    ),
}


@pytest.mark.parametrize("case", sorted(MISSING))
def test_a_missing_spanish_is_refused_naming_the_entry_and_the_field(db, tmp_path, case):
    old, new, message = MISSING[case]
    path = seed_with(tmp_path, old, new)
    before = catalog_dict(db)
    with pytest.raises(SeedError) as refused:
        load_seed(db, path)
    assert str(refused.value).startswith(f"{path}: {message}")
    assert catalog_dict(db) == before


def test_an_empty_english_needs_no_spanish(tmp_path):
    """A way to train without a description, a speciality on the usual ramp-up."""
    text = SEED.read_text(encoding="utf-8")
    text += (
        '\n[[strategies]]\ncode = "reading-group"\nname = "Reading group"\n'
        'name_es = "Grupo de lectura"\n'
        '\n[[specialities]]\ncode = "photonics"\nname = "Photonics"\nname_es = "Fotónica"\n'
    )
    path = tmp_path / "catalog.toml"
    path.write_text(text, encoding="utf-8")
    data = read_seed(path)
    assert (data.strategies[-1].description, data.strategies[-1].description_es) == ("", "")
    assert (data.specialities[-1].ramp_up, data.specialities[-1].ramp_up_es) == (
        "6-12 months",
        "6-12 meses",
    )


# --- the database and one way to read a text in a locale --------------------------------


def test_loading_stores_both_languages(db: Session):
    levels = db.scalars(select(Level).order_by(Level.number)).all()
    assert [lv.name for lv in levels] == ENGLISH_LEVELS
    assert [lv.in_locale("es") for lv in levels] == ARTICLE_LEVELS
    assert [lv.in_locale("en") for lv in levels] == ENGLISH_LEVELS
    assert levels[0].in_locale("es", "experience_label") == "0-6 meses"
    assert levels[4].in_locale("es", "summary").startswith("Diseño estratégico de infraestructura")
    lead = db.scalars(select(JobRole).where(JobRole.code == "lead")).one()
    assert (lead.name, lead.in_locale("es")) == ("Infrastructure Lead", "Líder de Infraestructura")
    strategy = db.scalars(select(TrainingStrategy).where(TrainingStrategy.code == "bootcamp")).one()
    assert strategy.in_locale("es", "description").startswith("Tracks de certificación completos")
    line = db.scalars(select(RoiLine).where(RoiLine.code == "downtime")).one()
    assert line.in_locale("es") == "Menos tiempo de inactividad"
    mig = db.scalars(select(Speciality).where(Speciality.code == "mig")).one()
    assert mig.in_locale("es") == "Particionamiento MIG"
    # A vendor's exam title has no Spanish: Spanish readers see the vendor's.
    exam = factories.exam(db, "NCA-AIIO")
    assert exam.in_locale("es") == "NVIDIA Certified Associate - AI Infrastructure and Operations"


def test_an_entry_without_spanish_reads_its_english(db: Session):
    """An entry made before its Spanish was given (or an internal one without it)."""
    template = db.scalars(select(TeamTemplate).where(TeamTemplate.code == "small")).one()
    template.name_es = ""
    assert template.in_locale("es") == "Small (10-100 GPUs)"
    own = Credential(code="OWN-1", name="Our exam", kind="exam", origin="internal")
    assert own.in_locale("es") == "Our exam"
    own.name_es = "Nuestro examen"
    assert (own.in_locale("es"), own.in_locale("en")) == ("Nuestro examen", "Our exam")


def test_plain_data_and_the_readiness_copy_read_alike(db: Session):
    catalog = catalog_dict(db)
    assert [in_locale(lv, "es") for lv in catalog["levels"]] == ARTICLE_LEVELS
    assert in_locale(catalog["templates"][0]["slots"][1], "es") == "Ingeniero de Operaciones"
    assert in_locale(catalog["paths"][0], "es") == "Fundamentos"
    assert in_locale(catalog["paths"][0]["courses"][0], "es") == "Fundamentals of Deep Learning"
    snapshot = load_snapshot(db)
    small = snapshot.templates[0]
    assert small.in_locale("es") == "Equipo pequeño (10-100 GPU)"
    assert small.slots[0].in_locale("es") == "Líder de Infraestructura"
    assert small.slots[0].job_role.in_locale("es") == "Líder de Infraestructura"
    groups = {c.code: c for c in snapshot.credentials.values()}
    assert groups["NVIDIA-ASSOCIATE+"].in_locale("es") == "NVIDIA Associate o superior"
    assert snapshot.paths[1].in_locale("es") == "Profesional"
    assert snapshot.paths[0].exam is not None
    assert snapshot.paths[0].exam.in_locale("es").startswith("NVIDIA Certified Associate")


# --- the pages ---------------------------------------------------------------------------


def test_the_catalog_page_names_levels_templates_and_ways_to_train_in_spanish(client, auth, db):
    auth.sign_in(factories.engineer(db, locale="es"))
    page = client.get("/catalog", headers=ENGLISH).get_data(as_text=True)
    for spanish in (
        *(f"{n} · {name}" for n, name in enumerate(ARTICLE_LEVELS, start=1)),
        "0-6 meses",
        "Equipo pequeño (10-100 GPU)",
        "Ingeniero de Operaciones",
        "Arquitecto de Infraestructura",
        "Inmersión bootcamp",
        "Alianza con proveedores",
        "Certificación de redes NVIDIA",
    ):
        assert spanish in page
    for english in ("Operational", "Small (10-100 GPUs)", "Bootcamp immersion", "0-6 months"):
        assert english not in page
    # Vendors' titles stay as they are.
    assert "NVIDIA Certified Associate - AI Infrastructure and Operations" in page
    assert "CompTIA Linux+" in page


def test_an_issuer_the_tracker_words_itself_is_spanish_to_spanish_readers(client, auth, db):
    """The catalog, the admin's catalog and the credential form; a company's name as it is."""
    expert, sigma = factories.credential(db, "VENDOR-EXPERT"), factories.credential(db, "SIX-SIGMA")
    assert (expert.in_locale("es", "issuer"), sigma.in_locale("es", "issuer")) == (
        "proveedor de hardware",
        "varios",
    )
    assert expert.in_locale("en", "issuer") == "hardware vendor"
    auth.sign_in(factories.engineer(db, locale="es", access_role="admin"))
    for url in ("/catalog", "/admin/catalog", "/credentials"):
        page = client.get(url).get_data(as_text=True)
        assert "proveedor de hardware" in page and "varios" in page, url
        assert "hardware vendor" not in page and "various" not in page, url
        assert "Red Hat" in page, url


@pytest.mark.parametrize(
    ("locale", "shown", "hidden"),
    [
        ("es", "50 preguntas, 60 min en línea, con supervisión remota", "remotely proctored"),
        ("en", "50 questions, 60 min online, remotely proctored", "supervisión remota"),
    ],
)
def test_the_catalog_says_how_an_exam_is_taken_in_the_readers_language(
    client, auth, db, locale, shown, hidden
):
    exam = db.scalars(select(Exam).join(Exam.credential).where(Credential.code == "NCA-AIIO")).one()
    assert exam.in_locale(locale, "delivery") in shown
    auth.sign_in(factories.engineer(db, locale=locale))
    page = " ".join(client.get("/catalog").get_data(as_text=True).split())
    assert shown in page and hidden not in page


def test_an_english_reader_sees_the_english(client, auth, db):
    auth.sign_in(factories.engineer(db, locale="en"))
    page = client.get("/catalog", headers=SPANISH).get_data(as_text=True)
    assert "2 · Operational" in page and "Small (10-100 GPUs)" in page
    assert "Operacional" not in page and "Equipo pequeño" not in page


def test_the_learning_paths_page_names_the_paths_in_spanish(client, db):
    page = client.get("/", headers=SPANISH).get_data(as_text=True)
    assert "<h2>Fundamentos</h2>" in page and "<h2>Profesional</h2>" in page
    assert "<h2>Foundations</h2>" not in page
    assert "GPU Architecture Essentials" in page  # a vendor's course title


def test_the_career_page_names_the_levels_in_spanish(client, auth, db):
    who = factories.engineer(db, locale="es", level=2)
    auth.sign_in(who)
    page = client.get(f"/careers/engineers/{who.id}").get_data(as_text=True)
    assert "Operacional" in page and "Profesional" in page and "Arquitecto" in page
    assert "Operational" not in page and "Professional" not in page


def test_the_team_page_names_template_and_seats_in_spanish(client, auth, db, pinned_today):
    manager = factories.engineer(db, access_role="manager", locale="es", job_roles=("lead",))
    team = factories.team(db, gpus=50, manager=manager)
    factories.engineer(db, team=team, manager=manager, level=2, hired_on=dt.date(2024, 1, 1))
    auth.sign_in(manager)
    page = client.get(f"/teams/{team.id}").get_data(as_text=True)
    assert "Equipo pequeño (10-100 GPU)" in page
    assert "Líder de Infraestructura" in page and "Especialista en Redes" in page
    assert "Small (10-100 GPUs)" not in page and "Network Specialist" not in page


def test_the_roi_calculator_starts_from_the_example_in_the_readers_language(client, auth, db):
    auth.sign_in(factories.engineer(db, access_role="manager", locale="es"))
    page = client.get("/roi").get_data(as_text=True)
    assert 'value="Menos tiempo de inactividad"' in page
    assert 'value="Capacitación (5 ingenieros x 15.000)"' in page
    assert 'value="Less downtime"' not in page


def test_the_dashboard_names_the_next_level_and_the_paths_in_spanish(client, auth, db):
    who = factories.engineer(db, locale="es", level=1)
    auth.sign_in(who)
    page = client.get("/dashboard").get_data(as_text=True)
    assert "(Operacional)" in page and "Fundamentos" in page
    assert "(Operational)" not in page
