"""/api/v1/certifications: the newest of each credential by expiry, filtered, by who asks."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy.orm import Session

from tests import factories
from tests.api.conftest import Scene
from tests.helpers import Api

D = dt.date


@pytest.fixture
def cert_scene(db: Session, scene: Scene) -> Scene:
    """Target: a renewed NCA-AIIO (valid), CKA expiring, a renewed RHCE (expired).

    Second (also the manager's report): CKA 92 days away. Other (not the
    manager's): CISSP expiring.
    """
    certify = factories.certification
    who = scene.target
    certify(db, who, "NCA-AIIO", D(2023, 6, 10), D(2025, 6, 10))
    certify(db, who, "NCA-AIIO", D(2025, 6, 10), D(2027, 6, 10))
    certify(db, who, "CKA", D(2024, 12, 31), D(2026, 12, 31))
    certify(db, who, "RHCE", D(2022, 1, 1), D(2025, 1, 1))
    certify(db, who, "RHCE", D(2025, 1, 1), D(2026, 1, 1))
    second = factories.engineer(db, name="Second", manager=scene.manager)
    certify(db, second, "CKA", D(2025, 3, 1), D(2027, 3, 1))
    certify(db, scene.other, "CISSP", D(2023, 12, 1), D(2026, 12, 1))
    return scene


def listed(api: Api, token: str, query: str = "") -> list[tuple[str, str, str, str]]:
    response = api.get(f"/api/v1/certifications{query}", token)
    assert response.status_code == 200, response.get_json()
    return [
        (c["engineer"]["name"], c["credential"]["code"], c["expires_on"], c["status"])
        for c in response.get_json()["items"]
    ]


TARGET_NCA = ("Target", "NCA-AIIO", "2027-06-10", "valid")
TARGET_CKA = ("Target", "CKA", "2026-12-31", "expiring")
TARGET_RHCE = ("Target", "RHCE", "2026-01-01", "expired")
SECOND_CKA = ("Second", "CKA", "2027-03-01", "valid")
OTHER_CISSP = ("Other", "CISSP", "2026-12-01", "expiring")


def test_certifications_newest_per_credential_sorted_by_expiry(api: Api, cert_scene: Scene) -> None:
    assert listed(api, cert_scene.tokens["manager"]) == [
        TARGET_RHCE,
        TARGET_CKA,
        SECOND_CKA,
        TARGET_NCA,
    ]


@pytest.mark.parametrize(
    ("role", "query", "expected"),
    [
        ("manager", "?status=expiring", [TARGET_CKA]),
        ("manager", "?status=valid", [SECOND_CKA, TARGET_NCA]),
        ("manager", "?status=expired", [TARGET_RHCE]),
        (
            "manager",
            "?status=expiring&expiring_within=100",
            [TARGET_CKA, (*SECOND_CKA[:3], "expiring")],
        ),
        ("manager", "?status=expiring&expiring_within=30", []),
        ("manager", "?status=EXPIRING&expiring_within=32", [TARGET_CKA]),
        ("self", "?status=expiring", [TARGET_CKA]),
        ("self", "", [TARGET_RHCE, TARGET_CKA, TARGET_NCA]),
        ("other engineer", "", [OTHER_CISSP]),
        ("other manager", "?status=expiring", [OTHER_CISSP]),
        ("admin", "?status=expiring", [OTHER_CISSP, TARGET_CKA]),
    ],
)
def test_certifications_filter(
    api: Api, cert_scene: Scene, role: str, query: str, expected: list
) -> None:
    assert listed(api, cert_scene.tokens[role], query) == expected


def test_certifications_of_one_engineer(api: Api, db: Session, cert_scene: Scene) -> None:
    target = cert_scene.target.id
    assert listed(api, cert_scene.tokens["admin"], f"?engineer={target}&status=valid") == [
        TARGET_NCA
    ]
    response = api.get(
        f"/api/v1/certifications?engineer={target}", cert_scene.tokens["other manager"]
    )
    assert response.status_code == 403
