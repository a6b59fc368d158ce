"""/roi: first-year and ongoing return on a training investment."""

from __future__ import annotations

from typing import Any

from flask import Response
from sqlalchemy import select

from tracker.api.access import managers_only
from tracker.api.blueprint import bp
from tracker.api.openapi import Operation
from tracker.catalog.models.planning import RoiLine
from tracker.extensions import db_session
from tracker.i18n import N_
from tracker.readiness.schemas import RoiBody, RoiOut
from tracker.readiness.services.roi import roi


def _catalog_lines() -> dict[str, Any]:
    """Return the catalog's example lines, as a body would name them."""
    lines: dict[str, dict[str, int]] = {}
    for row in db_session().scalars(select(RoiLine).order_by(RoiLine.position)):
        lines.setdefault(row.kind, {})[row.code] = row.amount
    return {"investment": lines.get("investment", {}), "returns": lines.get("return", {})}


# The body may be left out (the catalog's example); one that is sent is JSON.
ROI = Operation(answers={200: RoiOut}, body_model=RoiBody, body_required=False, refusals=(403,))


@bp.post("/roi", endpoint="roi")
@ROI
def post_roi() -> tuple[Response, int]:
    """First-year and ongoing ROI of named lines; an empty body uses the catalog's example."""
    managers_only(N_("the ROI calculator is for managers and admins"))
    lines = ROI.validated(ROI.json_body() or _catalog_lines())
    return ROI.answer(RoiOut.of(roi(lines.investment, lines.returns)))
