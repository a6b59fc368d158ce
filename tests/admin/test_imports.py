"""CSV imports: every row or nothing, each bad row reported with its line, column and rule."""

from __future__ import annotations

import datetime as dt
import io
from decimal import Decimal

import pytest
from sqlalchemy import select

from tests import factories
from tests.admin.helpers import field_error, text
from tests.factories import TODAY
from tests.helpers import count, sign_in
from tracker.audit.models import AuditEvent
from tracker.errors import ValidationError
from tracker.imports.services.kinds import ImportRefused
from tracker.imports.services.run import IMPORT_KINDS, import_csv
from tracker.people.models import Engineer, JobRoleAssignment, LevelChange
from tracker.people.services.reads import find_engineer
from tracker.progress.models import Certification, ExamAttempt, HourLog

D = dt.date
TABLES = (Engineer, JobRoleAssignment, LevelChange, HourLog, ExamAttempt, Certification)


def counts(db):
    return tuple(count(db, model) for model in TABLES)


def upload(
    client,
    kind: str,
    content: str | bytes,
    filename: str = "data.csv",
    language="en",
    check_only: bool = False,
):
    data = content.encode() if isinstance(content, str) else content
    sent: dict[str, object] = {"kind": kind, "file": (io.BytesIO(data), filename)}
    if check_only:
        sent["check_only"] = "y"
    return client.post(
        "/admin/imports",
        data=sent,
        content_type="multipart/form-data",
        headers={"Accept-Language": language},
    )


@pytest.fixture
def scene(db):
    """A team, a manager and two engineers already in the tracker."""
    team = factories.team(db, name="Blue Team")
    boss = factories.engineer(
        db, name="Mia Manager", email="mia@example.com", access_role="manager"
    )
    ann = factories.engineer(db, name="Ann", email="ann@example.com", hired_on=D(2021, 1, 1))
    bob = factories.engineer(db, name="Bob", email="bob@example.com", hired_on=D(2021, 1, 1))
    return team, boss, ann, bob


# --- good files ---------------------------------------------------------------

PEOPLE = (
    "email,name,role,job_roles,level,team,manager_email,hired_on,experience_months,password\n"
    "lead@example.com,Lena Lead,manager,lead;senior,4,Blue Team,mia@example.com,2020-02-01,24,"
    "a long enough secret\n"
    'ops@example.com,"Otto, Ops",engineer,operations; network,2,Blue Team,lead@example.com,'
    "2024-05-01,6,\n"
    "new@example.com,Nia New,,,,,,,,\n"
)


def test_people_file_imports_every_row(admin_client, app, db, scene):
    before = counts(db)
    response = upload(admin_client, "people", PEOPLE)
    assert response.status_code == 302
    page = admin_client.get(response.headers["Location"]).text
    assert "3 people imported." in page

    assert count(db, Engineer) == before[0] + 3
    lena = find_engineer(db, "lead@example.com")
    assert (lena.name, lena.access_role, lena.level, lena.team.name) == (
        "Lena Lead",
        "manager",
        4,
        "Blue Team",
    )
    assert lena.manager.email == "mia@example.com"
    assert lena.job_role_codes == {"lead", "senior"}
    assert (lena.hired_on, lena.experience_months) == (D(2020, 2, 1), 24)
    otto = find_engineer(db, "ops@example.com")
    assert otto.name == "Otto, Ops"
    assert otto.manager_id == lena.id  # a manager from an earlier line of the same file
    assert otto.job_role_codes == {"operations", "network"}
    assert otto.password_hash is None
    nia = find_engineer(db, "new@example.com")
    assert (nia.access_role, nia.level, nia.team, nia.job_role_codes) == (
        "engineer",
        1,
        None,
        set(),
    )
    assert count(db, LevelChange) == before[2] + 3
    sign_in(app.test_client(), "lead@example.com", "a long enough secret")


def test_a_file_only_checked_passes_every_rule_and_saves_nothing(admin_client, db, scene):
    before, events = counts(db), count(db, AuditEvent)

    response = upload(admin_client, "people", PEOPLE, check_only=True)

    page = response.text
    assert response.status_code == 200
    assert "The file&#39;s 3 rows pass every rule. Nothing was saved" in page
    assert '<option selected value="people">' in page  # kept for the same file's import
    assert counts(db) == before and count(db, AuditEvent) == events
    assert upload(admin_client, "people", PEOPLE).status_code == 302
    assert count(db, Engineer) == before[0] + 3


def test_a_file_only_checked_reports_its_bad_rows_as_an_import_does(admin_client, db, scene):
    before = counts(db)
    bad = "email,course,date,hours,note\nann@example.com,FDL,2026-01-05,30,\n"

    response = upload(admin_client, "hours", bad, check_only=True, language="es")

    assert response.status_code == 400
    assert "1 fila incumple una regla" in response.text
    assert counts(db) == before


def test_hours_file_imports_every_row(admin_client, db, scene):
    before = count(db, HourLog)
    content = (
        "email,course,date,hours,note\n"
        "ann@example.com,FDL,2026-01-05,4,first session\n"
        "ann@example.com,fdl,2026-01-06,4.5,\n"
        'bob@example.com,GPU-ARCH,2026-02-01,8,"lab, then reading"\n'
    )
    response = upload(admin_client, "hours", content)
    assert response.status_code == 302
    assert "3 hour logs imported." in admin_client.get("/admin/imports").text
    assert count(db, HourLog) == before + 3
    ann = find_engineer(db, "ann@example.com")
    logs = db.scalars(select(HourLog).where(HourLog.engineer_id == ann.id)).all()
    assert sorted(log.hours for log in logs) == [Decimal("4.00"), Decimal("4.50")]


def test_attempts_file_imports_every_row(admin_client, admin, db, scene):
    content = (
        "email,exam,date,score,passed,cost,voucher_code,proctoring\n"
        "ann@example.com,NCA-AIIO,2025-01-10,55,no,135,,online\n"
        "ann@example.com,NCA-AIIO,2025-02-10,81,yes,135,VOUCH-1,online\n"
        "ann@example.com,NCP-AII,2025-06-01,77,yes,400,,test centre Madrid\n"
    )
    response = upload(admin_client, "attempts", content)
    assert response.status_code == 302
    assert "3 exam attempts imported." in admin_client.get("/admin/imports").text
    ann = find_engineer(db, "ann@example.com")
    attempts = db.scalars(
        select(ExamAttempt).where(ExamAttempt.engineer_id == ann.id).order_by(ExamAttempt.id)
    ).all()
    assert [(a.score, a.passed) for a in attempts] == [(55, False), (81, True), (77, True)]
    assert attempts[1].voucher_code == "VOUCH-1" and attempts[1].cost == Decimal("135.00")
    assert attempts[2].proctoring == "test centre Madrid"
    assert attempts[0].recorded_by_id == admin.id
    certs = db.scalars(select(Certification).where(Certification.engineer_id == ann.id)).all()
    assert sorted(c.expires_on for c in certs) == [D(2027, 2, 10), D(2027, 6, 1)]


def test_credentials_file_imports_every_row(admin_client, db, scene):
    content = (
        "email,credential,issued_on,expires_on,evidence\n"
        "ann@example.com,CKA,2025-03-01,2028-03-01,CKA-1234\n"
        "bob@example.com,rhce,2024-09-15,,https://example.com/cert/99\n"
    )
    response = upload(admin_client, "credentials", content)
    assert response.status_code == 302
    assert "2 external credentials imported." in admin_client.get("/admin/imports").text
    bob = find_engineer(db, "bob@example.com")
    cert = db.scalars(select(Certification).where(Certification.engineer_id == bob.id)).one()
    assert (cert.credential.code, cert.earned_on, cert.evidence) == (
        "RHCE",
        D(2024, 9, 15),
        "https://example.com/cert/99",
    )


def test_a_file_saved_by_excel_with_a_bom_imports(admin_client, db, scene):
    content = "email,course,date,hours,note\r\nann@example.com,FDL,2026-01-05,2,\r\n"
    response = upload(admin_client, "hours", content.encode("utf-8-sig"))
    assert response.status_code == 302


def test_optional_columns_may_be_left_out(admin_client, db, scene):
    response = upload(
        admin_client, "hours", "email,course,date,hours\nann@example.com,FDL,2026-01-05,2\n"
    )
    assert response.status_code == 302


# --- bad rows: all reported, nothing imported ---------------------------------

BAD_FILES = {
    "people": (
        "email,name,role,job_roles,level,team,manager_email,hired_on,experience_months\n"
        "good1@example.com,Good One,engineer,operations,1,,,,0\n"
        "ann@example.com,Ann Again,engineer,operations,1,,,,0\n"
        "good2@example.com,Good Two,engineer,operations,2,Blue Team,,2024-01-01,3\n"
        "bad@example.com,Bad Level,engineer,astronaut,9,No Team,,,0\n",
        [
            (3, "email", "already exists"),
            (5, "team", "no team named 'No Team'"),
            (5, "job_roles", "unknown job role 'astronaut'"),
            (5, "level", "level must be a whole number from 1 to 5"),
        ],
    ),
    "hours": (
        "email,course,date,hours,note\n"
        "ann@example.com,FDL,2026-01-05,4,\n"
        "ann@example.com,FDL,2026-01-06,0,\n"
        "bob@example.com,GPU-ARCH,2026-01-06,3,\n"
        "ghost@example.com,NOPE,2026-13-01,x,\n",
        [
            (3, "hours", "hours must be more than 0 and at most 24"),
            (5, "email", "no person with email ghost@example.com; import people first"),
            (5, "course", "unknown course code 'NOPE'"),
            (5, "date", "date must be a date written YYYY-MM-DD"),
            (5, "hours", "hours must be a number"),
        ],
    ),
    "attempts": (
        "email,exam,date,score,passed,cost,voucher_code,proctoring\n"
        "ann@example.com,NCA-AIIO,2025-01-10,85,yes,,,\n"
        "bob@example.com,NCP-AII,2025-01-10,85,yes,,,\n"
        "bob@example.com,NCA-AIIO,2025-01-10,85,yes,,,\n"
        "bob@example.com,NCA-AIIO,2025-01-11,101,maybe,-5,,\n",
        [
            (3, "exam", "NCP-AII requires a valid NCA-AIIO"),
            (5, "score", "score must be a whole number from 0 to 100"),
            (5, "passed", "passed must be 'yes' or 'no'; not 'maybe'"),
            (5, "cost", "cost must be from 0 to 1,000,000"),
        ],
    ),
    "credentials": (
        "email,credential,issued_on,expires_on,evidence\n"
        "ann@example.com,CKA,2025-03-01,,CKA-1\n"
        "ann@example.com,RHCE,2025-03-01,2024-01-01,RHCE-1\n"
        "bob@example.com,CKA,2025-03-01,,CKA-2\n"
        "bob@example.com,CLOUD-ARCHITECT,2030-01-01,,\n",
        [
            (3, "expires_on", "expiry must not be before the issue date"),
            (5, "credential", "CLOUD-ARCHITECT is a group"),
            (5, "issued_on", "date must not be in the future"),
            (5, "evidence", "evidence is required"),
        ],
    ),
}


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_two_bad_rows_are_reported_and_nothing_is_imported(admin_client, db, scene, kind):
    content, expected = BAD_FILES[kind]
    before = counts(db)
    response = upload(admin_client, kind, content)
    assert response.status_code == 400
    assert "2 rows break a rule (listed below); nothing was imported" in field_error(
        response.text, "file"
    )
    page = text(response)
    for line, column, message in expected:
        assert f"<tr><td>{line}</td><td>{column}</td><td>" in page
        row = page[page.index(f"<tr><td>{line}</td><td>{column}</td><td>") :].split("</tr>")[0]
        assert message in row
    assert counts(db) == before  # the good rows were not imported either


# A file is data in one format whatever the reader's language: a cell written
# the Spanish way is refused with the format wanted, the file's text quoted one way.
SPANISH_CELLS = (
    "email,exam,date,score,passed,cost,voucher_code,proctoring\n"
    'ann@example.com,NCA-AIIO,31/03/2025,1.000,sí,"1.200,50",,\n'
)


def test_a_cell_in_another_format_is_refused_with_the_format_wanted(admin_client, db, scene):
    response = upload(admin_client, "attempts", SPANISH_CELLS)
    assert response.status_code == 400
    page = text(response)
    for column, message in [
        ("date", "date must be a date written YYYY-MM-DD, e.g. 2026-03-31; not '31/03/2025'"),
        ("score", "score must be a whole number written in digits alone, e.g. 1200; not '1.000'"),
        ("passed", "passed must be 'yes' or 'no'; not 'sí'"),
        (
            "cost",
            "cost must be a number written with a decimal point and no thousands separator,"
            " e.g. 1200.5; not '1.200,50'",
        ),
    ]:
        assert f"<tr><td>2</td><td>{column}</td><td>{message}</td></tr>" in page
    assert "Dates are written YYYY-MM-DD, and numbers with a decimal point" in page
    assert count(db, ExamAttempt) == 0


def test_service_reports_every_bad_row_and_rolls_back(db, scene):
    content, _ = BAD_FILES["hours"]
    before = counts(db)
    with pytest.raises(ImportRefused) as exc:
        import_csv(db, "hours", content, TODAY)
    assert sorted({e.line for e in exc.value.errors}) == [3, 5]
    assert str(exc.value.errors[0]) == "line 3, hours: hours must be more than 0 and at most 24"
    assert counts(db) == before


def test_later_rows_see_earlier_ones(admin_client, db, scene):
    """Rows are imported in file order: the day's 24-hour limit counts the earlier lines."""
    content = (
        "email,course,date,hours,note\n"
        "ann@example.com,FDL,2026-01-05,20,\n"
        "ann@example.com,GPU-ARCH,2026-01-05,5,\n"
    )
    response = upload(admin_client, "hours", content)
    assert response.status_code == 400
    assert "<td>3</td><td>hours</td><td>a day holds at most 24 hours; 20 h are already" in (
        text(response)
    )
    assert count(db, HourLog) == 0


def test_people_must_be_imported_before_their_hours(admin_client, db, scene):
    hours = "email,course,date,hours,note\nnew@example.com,FDL,2026-01-05,2,\n"
    response = upload(admin_client, "hours", hours)
    assert response.status_code == 400
    assert "no person with email new@example.com; import people first" in text(response)
    people = "email,name,role,job_roles,level,team,manager_email,hired_on,experience_months\n"
    people += "new@example.com,New,engineer,,1,,,2025-01-01,0\n"
    assert upload(admin_client, "people", people).status_code == 302
    assert upload(admin_client, "hours", hours).status_code == 302


HUGE = "99999999999999999999999"


@pytest.mark.parametrize(
    ("kind", "content", "message"),
    [
        (
            "people",
            "email,name,role,job_roles,level,team,manager_email,hired_on,experience_months\n"
            f"x@example.com,X,engineer,,{HUGE},,,,{HUGE}\n",
            "level must be a whole number from 1 to 5",
        ),
        (
            "attempts",
            "email,exam,date,score,passed,cost\n"
            f"ann@example.com,NCA-AIIO,2025-01-10,{HUGE},yes,{HUGE}\n",
            "score must be a whole number from 0 to 100",
        ),
        (
            "hours",
            f"email,course,date,hours\nann@example.com,FDL,2026-01-05,{HUGE}\n",
            "hours must be more than 0 and at most 24",
        ),
    ],
)
def test_huge_numbers_are_refused_not_crashing(admin_client, db, scene, kind, content, message):
    response = upload(admin_client, kind, content)
    assert response.status_code == 400
    assert message in text(response)


def test_a_row_with_a_wrong_number_of_values(admin_client, db, scene):
    content = "email,course,date,hours,note\nann@example.com,FDL,2026-01-05,2,a,b\n"
    response = upload(admin_client, "hours", content)
    assert response.status_code == 400
    assert "has 6 values; the header has 5 columns" in text(response)


# --- refused files ------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("email,course,date,note\nann@example.com,FDL,2026-01-05,x\n", "missing column hours"),
        (
            "email,course,date,hours,note,mood\nann@example.com,FDL,2026-01-05,2,,ok\n",
            "unknown column 'mood'",
        ),
        ("email,course,date,hours,hours\n", "column hours appears twice"),
        ("email,course,note\nann@example.com,FDL,x\n", "missing columns date, hours"),
        (
            "email;course;date;hours;note\nann@example.com;FDL;2026-01-05;2;x\n",
            "the columns are separated by semicolons: save the file with commas",
        ),
        ("", "the file is empty"),
        ("\n\n", "the file is empty"),
        ("email,course,date,hours,note\n", "the file has a header but no rows"),
        ("Zoë,FDL".encode("latin-1"), "the file is not UTF-8 text"),
    ],
)
def test_bad_files_are_refused(admin_client, db, scene, content, message):
    before = counts(db)
    response = upload(admin_client, "hours", content)
    assert response.status_code == 400
    assert message in field_error(response.text, "file")
    assert counts(db) == before


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            "line 1 (header): the columns are separated by semicolons: "
            "save the file with commas. An hour logs file has the columns "
            "email,course,date,hours,note",
        ),
        (
            "es",
            "línea 1 (cabecera): las columnas están separadas por punto y coma: "
            "guarda el archivo con comas.",
        ),
    ],
)
def test_a_semicolon_file_is_told_only_to_use_commas(admin_client, scene, language, expected):
    content = "email;course;date;hours;note\nann@example.com;FDL;2026-01-05;2;x\n"
    response = upload(admin_client, "hours", content, language=language)
    assert response.status_code == 400
    message = field_error(response.text, "file")
    assert message.startswith(expected)
    # The one run-together "column" is neither unknown nor are the real ones missing.
    assert "email;course" not in message
    assert "missing" not in message and "faltan" not in message


def test_header_message_lists_the_expected_columns(admin_client, scene):
    response = upload(admin_client, "credentials", "email,code,issued_on,evidence\n")
    message = field_error(response.text, "file")
    assert "line 1 (header): missing column credential; unknown column 'code'" in message
    assert "email,credential,issued_on,expires_on,evidence" in message


def test_no_file_or_kind(admin_client):
    response = admin_client.post("/admin/imports", data={"kind": "hours"})
    assert response.status_code == 400
    assert "choose a CSV file to import" in field_error(response.text, "file")
    response = upload(admin_client, "pets", "a,b\n1,2\n")
    assert response.status_code == 400
    assert "choose one of the listed kinds of file" in field_error(response.text, "kind")


def test_import_page_documents_the_formats(admin_client):
    page = text(admin_client.get("/admin/imports"))
    assert "Import people first" in page
    for kind in IMPORT_KINDS.values():
        assert ",".join(kind.columns) in page
    assert 'enctype="multipart/form-data"' in page


def test_unknown_kind_in_the_service(db):
    with pytest.raises(ValidationError):
        import_csv(db, "pets", "a\n1\n", TODAY)
