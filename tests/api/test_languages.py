"""The API's refusals in the request's language: Spanish with `Accept-Language: es`."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import Scene
from tests.helpers import Api

HOURS = {"course": "FDL", "date": "2026-11-20", "hours": 2}
EVIDENCE = {"kind": "blog", "title": "Tuning NCCL", "date": "2026-11-20"}
ROI = {"investment": {"training": 1000}, "returns": {"uptime": 5000}}
JSON = {"content_type": "application/json"}

# What is sent (method, URL, the token of whom, and the rest of the call), the answer's
# status and field, and its message in English and in Spanish.
REFUSALS = [
    pytest.param(
        ("GET", "/api/v1/hours", "no token", {}),
        401,
        "token",
        "send an API token in the header Authorization: Bearer TOKEN",
        "envía un token de la API en la cabecera Authorization: Bearer TOKEN",
        id="no token",
    ),
    pytest.param(
        ("GET", "/api/v1/hours", "revoked token", {}),
        401,
        "token",
        "the token is not valid: unknown, revoked, expired, or its account is deactivated",
        "el token no es válido: es desconocido, está revocado o caducado, o su cuenta está"
        " desactivada",
        id="revoked token",
    ),
    pytest.param(
        ("POST", "/api/v1/hours", "self", {"data": "{", **JSON}),
        400,
        "request",
        "the body is not valid JSON: a field name in double quotes was expected at line 1,"
        " column 2",
        "el cuerpo no es JSON válido: se esperaba un nombre de campo entre comillas dobles"
        " en la línea 1, columna 2",
        id="not JSON",
    ),
    pytest.param(
        ("POST", "/api/v1/hours", "self", {"data": '{"hours": 2,\n "note": "a}', **JSON}),
        400,
        "request",
        "the body is not valid JSON: a string is not closed at line 2, column 10",
        "el cuerpo no es JSON válido: una cadena no está cerrada en la línea 2, columna 10",
        id="string not closed",
    ),
    pytest.param(
        ("POST", "/api/v1/hours", "self", {"data": '{"hours": NaN}', **JSON}),
        400,
        "request",
        "the body is not valid JSON: NaN is not a JSON number",
        "el cuerpo no es JSON válido: NaN no es un número JSON",
        id="NaN",
    ),
    pytest.param(
        ("POST", "/api/v1/hours", "self", {"data": "", **JSON}),
        400,
        "request",
        "the body is not valid JSON: the body is empty",
        "el cuerpo no es JSON válido: el cuerpo está vacío",
        id="empty body",
    ),
    pytest.param(
        ("POST", "/api/v1/hours", "self", {"data": b'{"note": "\xff"}', **JSON}),
        400,
        "request",
        "the body is not valid JSON: it is not UTF-8 text",
        "el cuerpo no es JSON válido: no es texto UTF-8",
        id="not UTF-8",
    ),
    pytest.param(
        ("POST", "/api/v1/hours", "self", {"data": "[]", **JSON}),
        400,
        "request",
        "the body must be a JSON object",
        "el cuerpo debe ser un objeto JSON",
        id="not an object",
    ),
    pytest.param(
        ("POST", "/api/v1/hours", "self", {"json": {**HOURS, "colour": "red"}}),
        400,
        "colour",
        "unknown field (known: course, course_id, date, engineer, hours, note)",
        "campo desconocido (conocidos: course, course_id, date, engineer, hours, note)",
        id="unknown field",
    ),
    pytest.param(
        ("GET", "/api/v1/hours?colour=red", "self", {}),
        400,
        "colour",
        "unknown parameter (known: cursor, engineer, limit)",
        "parámetro desconocido (conocidos: cursor, engineer, limit)",
        id="unknown parameter",
    ),
    pytest.param(
        ("POST", "/api/v1/hours", "self", {"data": "course=FDL", "content_type": "text/plain"}),
        415,
        "request",
        "send the body as JSON with Content-Type: application/json",
        "envía el cuerpo como JSON con Content-Type: application/json",
        id="not sent as JSON",
    ),
    pytest.param(
        ("POST", "/api/v1/hours", "self", {"json": {**HOURS, "hours": "abc"}}),
        400,
        "hours",
        "must be a number",
        "debe ser un número",
        id="hours not a number",
    ),
    pytest.param(
        ("POST", "/api/v1/hours", "self", {"json": {**HOURS, "date": "2026-13-22"}}),
        400,
        "date",
        "must be a date written YYYY-MM-DD",
        "debe ser una fecha escrita AAAA-MM-DD",
        id="not a date",
    ),
    pytest.param(
        ("GET", "/api/v1/nothing-here", "self", {}),
        404,
        "request",
        "no such URL in the API",
        "no existe esa URL en la API",
        id="unknown URL",
    ),
    pytest.param(
        ("TRACE", "/api/v1/hours", "self", {}),
        405,
        "request",
        "TRACE is not allowed here; allowed: GET, HEAD, OPTIONS, POST",
        "aquí no se admite TRACE; se admiten: GET, HEAD, OPTIONS, POST",
        id="wrong method",
    ),
    pytest.param(
        ("GET", "/api/v1/engineers/99999", "admin", {}),
        404,
        "engineer",
        "no engineer with id 99999",
        "no hay ningún ingeniero con id 99999",
        id="no such engineer",
    ),
    pytest.param(
        ("GET", "/api/v1/hours/99999", "self", {}),
        404,
        "entry",
        "no hour log entry with id 99999",
        "no hay ninguna entrada del registro de horas con id 99999",
        id="no such entry",
    ),
    pytest.param(
        ("GET", "/api/v1/hours?engineer={other}", "self", {}),
        403,
        "engineer",
        "you may not see this engineer's records",
        "no puedes ver los registros de este ingeniero",
        id="another person's records",
    ),
    pytest.param(
        ("POST", "/api/v1/hours", "self", {"json": {**HOURS, "engineer": "{other}"}}),
        403,
        "engineer",
        "you may not log hours for this engineer",
        "no puedes registrar horas para este ingeniero",
        id="hours for another person",
    ),
    pytest.param(
        ("GET", "/api/v1/teams/99999/readiness", "manager", {}),
        404,
        "team",
        "no team with id 99999",
        "no hay ningún equipo con id 99999",
        id="no such team",
    ),
    pytest.param(
        ("GET", "/api/v1/webhooks", "self", {}),
        403,
        "webhooks",
        "only an admin manages webhooks",
        "solo un administrador gestiona los webhooks",
        id="webhooks for admins",
    ),
    pytest.param(
        ("GET", "/api/v1/teams/{team}/skills?x=1", "admin", {}),
        400,
        "x",
        "this URL takes no parameters",
        "esta URL no admite parámetros",
        id="parameter where none is taken",
    ),
    pytest.param(
        ("GET", "/api/v1/me?x=1", "self", {}),
        400,
        "x",
        "this URL takes no parameters",
        "esta URL no admite parámetros",
        id="parameter of /me",
    ),
    pytest.param(
        ("GET", "/api/v1/teams/{team}/readiness?gpus=abc", "admin", {}),
        400,
        "gpus",
        "must be a whole number of GPUs from 0 to 10,000,000",
        "debe ser un número entero de GPU entre 0 y 10.000.000",
        id="GPUs not a number",
    ),
    pytest.param(
        ("GET", "/api/v1/teams/{team}/forecast?gpus=10000001", "admin", {}),
        400,
        "gpus",
        "must be a whole number of GPUs from 0 to 10,000,000",
        "debe ser un número entero de GPU entre 0 y 10.000.000",
        id="GPUs beyond a fleet",
    ),
    pytest.param(
        ("GET", "/api/v1/teams/{team}/readiness?on=bad", "admin", {}),
        400,
        "on",
        "must be a date written YYYY-MM-DD",
        "debe ser una fecha escrita AAAA-MM-DD",
        id="readiness on no date",
    ),
    pytest.param(
        ("GET", "/api/v1/engineers/{other}/career?on=bad", "admin", {}),
        400,
        "on",
        "must be a date written YYYY-MM-DD",
        "debe ser una fecha escrita AAAA-MM-DD",
        id="career on no date",
    ),
    pytest.param(
        ("GET", "/api/v1/teams/{team}/forecast?months=0", "admin", {}),
        400,
        "months",
        "must be a whole number from 1 to 60",
        "debe ser un número entero de 1 a 60",
        id="forecast months",
    ),
    pytest.param(
        ("GET", "/api/v1/teams/{team}/history?months=61", "admin", {}),
        400,
        "months",
        "must be a whole number from 1 to 60",
        "debe ser un número entero de 1 a 60",
        id="team history months",
    ),
    pytest.param(
        ("GET", "/api/v1/organisation/history?months=0", "admin", {}),
        400,
        "months",
        "must be a whole number from 1 to 60",
        "debe ser un número entero de 1 a 60",
        id="organisation history months",
    ),
    pytest.param(
        ("GET", "/api/v1/organisation?order=up", "admin", {}),
        400,
        "order",
        "must be asc or desc",
        "debe ser asc o desc",
        id="order",
    ),
    pytest.param(
        ("PUT", "/api/v1/engineers/{self}/skills/infiniband-rdma", "self", {"json": {"level": 5}}),
        400,
        "level",
        "must be a whole number from 0 (none) to 4 (expert)",
        "debe ser un número entero de 0 (ninguno) a 4 (experto)",
        id="proficiency",
    ),
    pytest.param(
        ("POST", "/api/v1/engineers/{self}/evidence", "self", {"json": EVIDENCE}),
        400,
        "kind",
        "must be one of patent, publication, deployment",
        "debe ser uno de patent, publication, deployment",
        id="evidence kind",
    ),
    pytest.param(
        ("POST", "/api/v1/roi", "manager", {"json": {**ROI, "investment": {"training": -1000}}}),
        400,
        "investment.training",
        "must be a whole amount from 0 to 10,000,000,000",
        "debe ser un importe entero de 0 a 10.000.000.000",
        id="negative ROI line",
    ),
    pytest.param(
        ("POST", "/api/v1/roi", "manager", {"json": {**ROI, "investment": {}}}),
        400,
        "investment",
        'must be an object of named amounts, e.g. {"training": 75000}',
        'debe ser un objeto de importes con nombre, p. ej. {"training": 75000}',
        id="no ROI lines",
    ),
    pytest.param(
        ("POST", "/api/v1/hours", "self", {"data": '{"hours": ' + "9" * 5001 + "}", **JSON}),
        400,
        "request",
        "the body holds a number of more than 500 digits",
        "el cuerpo contiene un número de más de 500 dígitos",
        id="number beyond Python's digits",
    ),
    pytest.param(
        ("POST", "/api/v1/engineers", "admin", {"json": {"email": "not-an-email", "name": "N"}}),
        400,
        "email",
        "not a valid email address: it has no @ sign",
        "no es una dirección de correo electrónico válida: no tiene el signo @",
        id="not an email address",
    ),
    pytest.param(
        ("POST", "/api/v1/engineers", "admin", {"json": {"email": "ana@b", "name": "Ana"}}),
        400,
        "email",
        "not a valid email address: the part after the @ sign has no period (example.com)",
        "no es una dirección de correo electrónico válida: la parte tras el signo @ no tiene"
        " ningún punto (example.com)",
        id="email without a domain",
    ),
    pytest.param(
        ("GET", "/api/v1/hours?engineer=1%00", "self", {}),
        400,
        "request",
        "The request holds a NUL character; text must not contain one.",
        "La solicitud contiene un carácter NUL; el texto no debe contener ninguno.",
        id="NUL in the query",
    ),
]


def _call(api: Api, scene: Scene, call: tuple[str, str, str, dict[str, Any]], language: str) -> Any:
    method, url, role, kwargs = call
    other = str(scene.other.id)
    url = url.replace("{other}", other).replace("{self}", str(scene.target.id))
    url = url.replace("{team}", str(scene.other.team_id))
    kwargs = dict(kwargs)
    if "json" in kwargs:
        kwargs["json"] = {
            k: scene.other.id if v == "{other}" else v for k, v in kwargs["json"].items()
        }
    return api.call(
        method, url, scene.tokens[role], headers={"Accept-Language": language}, **kwargs
    )


@pytest.mark.parametrize(("call", "status", "field", "english", "spanish"), REFUSALS)
def test_a_refusal_speaks_the_requests_language(
    api: Api,
    scene: Scene,
    call: tuple[str, str, str, dict[str, Any]],
    status: int,
    field: str,
    english: str,
    spanish: str,
) -> None:
    for language, message in (("es", spanish), ("en", english)):
        response = _call(api, scene, call, language)
        assert response.status_code == status, response.get_data(as_text=True)
        assert response.get_json() == {"errors": {field: message}}


def test_a_rule_over_several_fields_leaves_each_fields_refusal_in_the_language(
    api: Api, scene: Scene
) -> None:
    """No course and a wrong date and hours: every refusal of the body is in Spanish."""
    bad = {"date": "2026-13-22", "hours": "abc"}
    response = api.post(
        "/api/v1/hours", scene.tokens["self"], bad, headers={"Accept-Language": "es"}
    )
    assert response.status_code == 400
    assert response.get_json() == {
        "errors": {
            "course": "este campo es obligatorio (un código de curso, o indica course_id)",
            "date": "debe ser una fecha escrita AAAA-MM-DD",
            "hours": "debe ser un número",
        }
    }
