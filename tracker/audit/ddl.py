"""The audit trail's named SQL the migrations run: whom each event already written is about."""

from __future__ import annotations

from tracker.audit.rules import PERSON_ENTITY, PERSON_KEY


def _fill(named_in: str) -> str:
    """Return the UPDATE that sets each event's person, as services.about_whom() says it."""
    about = (
        f"CASE WHEN entity = '{PERSON_ENTITY}' THEN entity_id "
        f"ELSE COALESCE({named_in.format(snapshot='after')}, "
        f"{named_in.format(snapshot='before')}) END"
    )
    return f"UPDATE audit_events SET engineer_id = {about} WHERE {about} IS NOT NULL"


# By dialect: the snapshots are JSON (json on PostgreSQL, text on SQLite).
FILL_ENGINEER_IDS = {
    "postgresql": _fill(f"CAST({{snapshot}} ->> '{PERSON_KEY}' AS INTEGER)"),
    "sqlite": _fill(f"CAST(json_extract({{snapshot}}, '$.{PERSON_KEY}') AS INTEGER)"),
}
