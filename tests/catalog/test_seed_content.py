"""The seed catalog says what docs/domain.md says (sections 1-6 and 10)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.orm import Session

from tests.catalog.helpers import by_code
from tracker.catalog.services.reads import catalog_dict


@pytest.fixture
def catalog(db: Session) -> dict[str, Any]:
    return catalog_dict(db)


def test_foundations_path(catalog):
    """docs/domain.md section 2: "Foundations path (target duration 3 months), ending in exam
    NCA-AIIO": Fundamentals of Deep Learning 8, Introduction to AI Infrastructure
    16, GPU Architecture Essentials 24; "Totals: Foundations 48 h"."""
    path = by_code(catalog["paths"])["FOUNDATIONS"]
    assert path["name"] == "Foundations"
    assert path["target_months"] == 3
    assert path["exam"] == "NCA-AIIO"
    assert [(c["title"], c["hours"]) for c in path["courses"]] == [
        ("Fundamentals of Deep Learning", 8),
        ("Introduction to AI Infrastructure", 16),
        ("GPU Architecture Essentials", 24),
    ]
    assert path["total_hours"] == 48 == sum(c["hours"] for c in path["courses"])


def test_professional_path(catalog):
    """docs/domain.md section 2: "Professional path (target duration 6 months), ending in exam
    NCP-AII": Multi-GPU Programming 40, InfiniBand Networking for AI 32, Storage
    Systems for AI 24, Cluster Management 40; "Professional 136 h"."""
    path = by_code(catalog["paths"])["PROFESSIONAL"]
    assert path["name"] == "Professional"
    assert path["target_months"] == 6
    assert path["exam"] == "NCP-AII"
    assert [(c["title"], c["hours"]) for c in path["courses"]] == [
        ("Multi-GPU Programming", 40),
        ("InfiniBand Networking for AI", 32),
        ("Storage Systems for AI", 24),
        ("Cluster Management", 40),
    ]
    assert path["total_hours"] == 136 == sum(c["hours"] for c in path["courses"])
    assert [p["code"] for p in catalog["paths"]] == ["FOUNDATIONS", "PROFESSIONAL"]


def test_exams(catalog):
    """docs/domain.md section 3: NCA-AIIO "online, remotely proctored, 50 questions, 60
    minutes", prerequisites none, validity 2 years; NCP-AII requires "a valid
    NCA-AIIO and documented experience" (rule: default 12 months); NCP-AIO
    validity "rule 2 years, like its siblings"."""
    exams = by_code(catalog["exams"])
    assert set(exams) == {"NCA-AIIO", "NCP-AII", "NCP-AIO"}

    nca = exams["NCA-AIIO"]
    assert nca["name"] == "NVIDIA Certified Associate - AI Infrastructure and Operations"
    assert (nca["questions"], nca["minutes"], nca["validity_months"]) == (50, 60, 24)
    assert nca["delivery"] == "online, remotely proctored"
    assert nca["prerequisites"] == []
    assert nca["experience_months"] == 0

    ncp = exams["NCP-AII"]
    assert ncp["name"] == "NVIDIA Certified Professional - AI Infrastructure"
    assert ncp["prerequisites"] == ["NCA-AIIO"]
    assert ncp["experience_months"] == 12
    assert ncp["validity_months"] == 24

    aio = exams["NCP-AIO"]
    assert aio["name"] == "NVIDIA Certified Professional - AI Operations"
    assert aio["validity_months"] == 24


def test_levels_and_salary_bands(catalog):
    """docs/domain.md section 1: levels 1 Foundations .. 5 Architect with their salary bands
    (75,000-95,000; 95,000-125,000; 125,000-175,000; 175,000-250,000;
    250,000-400,000)."""
    assert [
        (lv["number"], lv["name"], lv["salary_min"], lv["salary_max"]) for lv in catalog["levels"]
    ] == [
        (1, "Foundations", 75_000, 95_000),
        (2, "Operational", 95_000, 125_000),
        (3, "Professional", 125_000, 175_000),
        (4, "Expert", 175_000, 250_000),
        (5, "Architect", 250_000, 400_000),
    ]


def test_level_rules(catalog):
    """docs/domain.md section 1 rules: "Level 2: a valid NCA-AIIO and 6 months. Level 3: a
    valid NCP-AII, an NVIDIA networking certification and 12 months. Level 4: 24
    months and a vendor expert credential. Level 5: 48 months and recorded
    evidence"."""
    rules = {
        lv["number"]: (lv["min_experience_months"], lv["requires"], lv["requires_evidence"])
        for lv in catalog["levels"]
    }
    assert rules == {
        1: (0, [], False),
        2: (6, ["NCA-AIIO"], False),
        3: (12, ["NCP-AII", "NVIDIA-NETWORKING"], False),
        4: (24, ["VENDOR-EXPERT"], False),
        5: (48, [], True),
    }


def test_templates(catalog):
    """docs/domain.md section 4: "Fleet-size bands are half-open: small [10, 100) GPUs, medium
    [100, 1000), large 1000 and above"; small 1+2+1 = 4 slots, medium
    1+2+4+2+1 = 10, large 2+4+8+3+2+2+1 = 22; yearly team cost 450,000-550,000,
    1.2-1.6 M, 3.5-4.5 M."""
    templates = catalog["templates"]
    assert [
        (t["code"], t["min_gpus"], t["max_gpus"], t["slot_total"], t["cost_min"], t["cost_max"])
        for t in templates
    ] == [
        ("small", 10, 99, 4, 450_000, 550_000),
        ("medium", 100, 999, 10, 1_200_000, 1_600_000),
        ("large", 1000, None, 22, 3_500_000, 4_500_000),
    ]
    for t in templates:
        assert t["slot_total"] == sum(s["count"] for s in t["slots"])


def test_template_slots(catalog):
    """docs/domain.md section 4: the slots (count x role, levels) of each template."""
    slots = {
        t["code"]: [(s["count"], s["role"], s["min_level"], s["max_level"]) for s in t["slots"]]
        for t in catalog["templates"]
    }
    assert slots == {
        "small": [(1, "lead", 4, 4), (2, "operations", 2, 3), (1, "network", 3, 3)],
        "medium": [
            (1, "architect", 5, 5),
            (2, "senior", 4, 4),
            (4, "operations", 2, 3),
            (2, "network", 3, 4),
            (1, "storage", 3, 3),
        ],
        "large": [
            (2, "architect", 5, 5),
            (4, "senior", 4, 4),
            (8, "operations", 2, 3),
            (3, "network", 3, 4),
            (2, "storage", 3, 4),
            (2, "performance", 4, 4),
            (1, "security", 4, 4),
        ],
    }
    small = {s["role"]: s["certifications"] for s in catalog["templates"][0]["slots"]}
    # "Lead: NVIDIA Professional + vendor certs; Operations: NVIDIA Associate at
    # least; Network: NVIDIA networking cert".
    assert small == {
        "lead": ["NVIDIA-PROFESSIONAL", "VENDOR-EXPERT"],
        "operations": ["NVIDIA-ASSOCIATE+"],
        "network": ["NVIDIA-NETWORKING"],
    }
    large = catalog["templates"][2]
    assert {s["role"]: s["certifications"] for s in large["slots"]}["security"] == ["SECURITY-CERT"]
    groups = by_code(catalog["groups"])
    assert groups["SECURITY-CERT"]["members"] == ["CCSP", "CISSP"]
    assert groups["CLOUD-ARCHITECT"]["members"] == [
        "AWS-ARCHITECT",
        "AZURE-ARCHITECT",
        "GCP-ARCHITECT",
    ]


def test_team_wide_credentials(catalog):
    """docs/domain.md section 4: medium "additionally Kubernetes CKA, RHCE, VMware VCP-DCV";
    large additionally "cloud architect (AWS/Azure/GCP) ... Six Sigma"."""
    team = {t["code"]: set(t["credentials"]) for t in catalog["templates"]}
    assert team["small"] == set()
    assert team["medium"] == {"CKA", "RHCE", "VCP-DCV"}
    assert team["large"] >= {"CKA", "RHCE", "VCP-DCV", "CLOUD-ARCHITECT", "SIX-SIGMA"}


def test_training_strategies(catalog):
    """docs/domain.md section 5: bootcamp "2-4 weeks ... 15,000-25,000 per participant";
    apprenticeship "3-6 months ... about 20 % productivity loss"; vendor
    partnership "50-70 % off list price for groups of 10 or more"."""
    strategies = by_code(catalog["strategies"])
    assert set(strategies) == {"bootcamp", "apprenticeship", "vendor-partnership", "internal-track"}
    bootcamp = strategies["bootcamp"]
    assert (bootcamp["min_weeks"], bootcamp["max_weeks"]) == (2, 4)
    assert (bootcamp["cost_min"], bootcamp["cost_max"]) == (15_000, 25_000)
    vendor = strategies["vendor-partnership"]
    assert (vendor["discount_min_percent"], vendor["discount_max_percent"]) == (50, 70)
    assert vendor["min_group_size"] == 10
    apprenticeship = strategies["apprenticeship"]
    assert apprenticeship["productivity_loss_percent"] == 20
    assert (apprenticeship["min_weeks"], apprenticeship["max_weeks"]) == (13, 26)


def test_roi_lines(catalog):
    """docs/domain.md section 6: "Investment: 5 engineers x 15,000 training = 75,000; exams and
    materials 20,000; bootcamp and lab access 50,000; total 145,000. Yearly
    returns: less downtime 100,000; contractors avoided 200,000; efficiency (15 %
    energy) 75,000; faster deployment 300,000; total 675,000"; first-year ROI
    365 %, ongoing 465 %."""
    investment = [line["amount"] for line in catalog["roi"]["investment"]]
    returns = [line["amount"] for line in catalog["roi"]["return"]]
    assert investment == [75_000, 20_000, 50_000]
    assert returns == [100_000, 200_000, 75_000, 300_000]
    assert sum(investment) == 145_000
    assert sum(returns) == 675_000
    # 365.5 % and 465.5 %: the document's figures are the whole percent below.
    assert (sum(returns) - sum(investment)) * 100 // sum(investment) == 365
    assert sum(returns) * 100 // sum(investment) == 465


def test_specialities(catalog):
    """docs/domain.md section 10: nine specialities no certification covers, and four emerging."""
    specialities = {s["name"]: s["emerging"] for s in catalog["specialities"]}
    assert specialities == {
        "InfiniBand / RDMA": False,
        "Parallel file systems and GPU Direct Storage": False,
        "Liquid cooling": False,
        "NCCL collectives": False,
        "MIG partitioning": False,
        "Kubernetes orchestration": False,
        "Multi-cloud orchestration": False,
        "Security": False,
        "Sustainability metrics": False,
        "Quantum-classical integration": True,
        "Neuromorphic computing": True,
        "Optical interconnect": True,
        "Energy recovery": True,
    }


def test_external_credentials(catalog):
    """docs/domain.md section 3: "Other certifications the document names, tracked as external
    credentials": CompTIA Linux+, NVIDIA networking, CKA, RHCE, VCP-DCV, AWS /
    Azure / GCP cloud architect, CISSP, CCSP, Six Sigma, vendor expert."""
    codes = {c["code"] for c in catalog["credentials"]}
    assert codes >= {
        "COMPTIA-LINUX-PLUS",
        "NVIDIA-NETWORKING",
        "CKA",
        "RHCE",
        "CISSP",
        "CCSP",
        "VCP-DCV",
        "AWS-ARCHITECT",
        "AZURE-ARCHITECT",
        "GCP-ARCHITECT",
        "SIX-SIGMA",
        "VENDOR-EXPERT",
    }
    # Exams and groups are not external credentials.
    assert not codes & {"NCA-AIIO", "NCP-AII", "NCP-AIO", "CLOUD-ARCHITECT", "SECURITY-CERT"}
    assert by_code(catalog["credentials"])["CKA"]["issuer"] == "CNCF / Linux Foundation"
