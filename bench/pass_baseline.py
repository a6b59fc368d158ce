"""The reminder pass's baseline: the certifications due on a day, found and queued in SQL.

The certifications due for a notice on the day (a reminder or expiry notice
whose window is open and not queued yet, unless an exam plan acknowledges it;
an escalation of a lapse known to drop readiness), one query; and the same
query writing an outbox row for each (`queue_due`), as the pass must.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import text
from sqlalchemy.engine import Connection

DUE_SQL = """
SELECT d.id, d.engineer_id, d.email, d.credential_id, d.expires_on, d.window_days,
  'notice' AS kind
FROM (
  SELECT c.id, c.engineer_id, e.email, c.credential_id, c.expires_on,
    CASE WHEN c.expires_on < :today THEN -1 WHEN c.expires_on <= :d7 THEN 7
         WHEN c.expires_on <= :d30 THEN 30 WHEN c.expires_on <= :d60 THEN 60 ELSE 90 END
      AS window_days
  FROM certifications c JOIN engineers e ON e.id = c.engineer_id
  WHERE e.active = :yes AND c.expires_on >= :since AND c.expires_on <= :until
    AND NOT EXISTS (SELECT 1 FROM certifications r WHERE r.renews_id = c.id)
    AND c.revoked_on IS NULL
) d
WHERE NOT EXISTS (
    SELECT 1 FROM notifications n WHERE n.certification_id = d.id
    AND n.window_days = d.window_days AND n.kind IN ('reminder', 'expired'))
  AND (d.window_days = -1 OR NOT EXISTS (
    SELECT 1 FROM exam_plans p JOIN exams x ON x.id = p.exam_id
    WHERE p.engineer_id = d.engineer_id AND x.credential_id = d.credential_id
    AND p.cancelled_at IS NULL AND p.planned_on >= :today AND p.planned_on <= d.expires_on))
UNION ALL
SELECT c.id, c.engineer_id, e.email, c.credential_id, c.expires_on, NULL, 'escalation'
FROM lapse_impacts i
JOIN certifications c ON c.id = i.certification_id
JOIN engineers e ON e.id = c.engineer_id AND e.team_id = i.team_id
WHERE e.active = :yes AND c.expires_on >= :today AND c.expires_on <= :until
  AND NOT EXISTS (SELECT 1 FROM certifications r WHERE r.renews_id = c.id)
  AND c.revoked_on IS NULL
  AND NOT EXISTS (
    SELECT 1 FROM notifications n WHERE n.certification_id = c.id AND n.kind = 'escalation')
  AND NOT EXISTS (
    SELECT 1 FROM exam_plans p JOIN exams x ON x.id = p.exam_id
    WHERE p.engineer_id = c.engineer_id AND x.credential_id = c.credential_id
    AND p.cancelled_at IS NULL AND p.planned_on >= :today AND p.planned_on <= c.expires_on)
"""

# The due certifications written to the outbox, one row each with the least a
# row must hold: its unique key and Message-ID, its kind, window and recipient.
QUEUE_DUE_SQL = (
    "INSERT INTO notifications (dedupe_key, kind, certification_id, window_days, engineer_id,"
    " to_addrs, cc_addrs, subject, body_html, message_id, status, attempts, next_attempt_at,"
    " created_at) "
    "SELECT q.key, q.kind, q.id, q.window_days, q.engineer_id, q.email, '', '', '',"
    " '<' || replace(q.key, ':', '.') || '@baseline.bench>', 'pending', 0, :now, :now "
    "FROM (SELECT d.*, 'baseline:' || d.kind || ':' || CAST(d.id AS VARCHAR)"
    " || coalesce(':' || CAST(d.window_days AS VARCHAR), '') AS key"
    " FROM (SELECT d.id, d.engineer_id, d.email, d.window_days,"
    " CASE WHEN d.kind = 'escalation' THEN 'escalation'"
    " WHEN d.window_days = -1 THEN 'expired' ELSE 'reminder' END AS kind"
    " FROM (" + DUE_SQL + ") d) d) q "
    "RETURNING id"
)


def due_certifications(conn: Connection, on: dt.date, grace: int = 30, widest: int = 90):
    """The certifications due for a notice on `on` (default windows 90, 60, 30, 7): one query.

    Due: in reach of a window (engineer active, not renewed, expiring from
    `grace` days ago to `widest` days ahead) with the notice of its current
    window not queued yet and no exam planned to renew it; or with a lapse
    known to drop its team's readiness (lapse_impacts) not escalated yet.
    In expiry order.
    """
    return conn.execute(text(DUE_SQL + " ORDER BY 5, 1"), _due_params(on, grace, widest)).all()


def queue_due(conn: Connection, on: dt.date, now: dt.datetime, grace: int = 30, widest: int = 90):
    """Write an outbox row for each certification due on `on` (as `due_certifications`): one
    statement; return the rows' ids. The caller rolls it back.

    The pass must write what it finds, in the transaction that decides it (the
    notices' rows, their indexes and foreign keys), and a SELECT writes
    nothing: this is the least of that writing, one row per due certification
    with its unique key and Message-ID, kind, window and recipient, none of
    what the pass also writes (subjects, the managers copied, the copies in
    other languages).
    """
    return conn.execute(text(QUEUE_DUE_SQL), {"now": now, **_due_params(on, grace, widest)}).all()


def _due_params(on: dt.date, grace: int, widest: int) -> dict[str, object]:
    day = dt.timedelta(days=1)
    return {
        "yes": True,
        "today": on,
        "d7": on + 7 * day,
        "d30": on + 30 * day,
        "d60": on + 60 * day,
        "since": on - grace * day,
        "until": on + widest * day,
    }


def in_reach(conn: Connection, on: dt.date, grace: int = 30, widest: int = 90):
    """The certifications within reach of a window on `on` (what the pass looks over)."""
    return conn.execute(
        text(
            "SELECT c.id FROM certifications c JOIN engineers e ON e.id = c.engineer_id "
            "WHERE e.active = :yes AND c.expires_on >= :since AND c.expires_on <= :until "
            "AND NOT EXISTS (SELECT 1 FROM certifications r WHERE r.renews_id = c.id) "
            "AND c.revoked_on IS NULL"
        ),
        {
            "yes": True,
            "since": on - dt.timedelta(days=grace),
            "until": on + dt.timedelta(days=widest),
        },
    ).all()
