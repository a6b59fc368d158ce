"""/health: whether this server may take requests (readiness), and /health/live: that it runs.

Answers in the health check format of draft-inadarei-api-health-check
(`application/health+json`): `status` pass, warn or fail, and `checks` by
component. A failing check (the database does not answer, or holds another
schema than this version expects) answers 503, so a load balancer or an
orchestrator sends requests elsewhere; a warning (mail or webhooks waiting too
long, no scheduler running, an Open Badges signing key no secret key opens)
answers 200, for a monitor to tell someone. Open without a sign-in, as probes
are, and naming no one's records.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, json

from tracker.clock import utcnow
from tracker.extensions import db_session, secret_keys
from tracker.health.rules import FAIL, HEALTH_JSON, PASS
from tracker.health.services import overall, readiness
from tracker.reminders.scheduler import SchedulerLock

bp = Blueprint("health", __name__, url_prefix="/health")


def _answer(body: dict[str, Any], status: int) -> Response:
    response = Response(json.dumps(body), status=status, mimetype=HEALTH_JSON)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/live")
def live() -> Response:
    """Answer that the server runs, asking nothing of the database."""
    return _answer({"status": PASS}, 200)


@bp.get("")
def ready() -> Response:
    """Answer whether the server may take requests, and what needs a look."""
    lock = SchedulerLock(current_app._get_current_object())  # type: ignore[attr-defined]
    checks = readiness(db_session(), utcnow(), lock.held, secret_keys())
    status = overall(checks)
    body = {
        "status": status,
        "checks": {check.name: [check.dump()] for check in checks},
    }
    return _answer(body, 503 if status == FAIL else 200)
