"""Helpers for the careers tests: a page's text, an apprenticeship form's data."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.careers.conftest import People


def page(client: FlaskClient, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, url
    return response.get_data(as_text=True)


def pairing(people: People, **change) -> dict[str, str]:
    data = {
        "junior": str(people.junior.id),
        "senior": str(people.senior.id),
        "path": "",
        "starts_on": "2026-12-01",
        "months": "3",
        "note": "",
    }
    data.update(change)
    return data
