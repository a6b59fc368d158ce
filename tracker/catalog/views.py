"""Catalog pages: the home page with the learning paths, and the catalog."""

from __future__ import annotations

from flask import Blueprint, render_template

from tracker.catalog.services import catalog_dict
from tracker.extensions import db_session
from tracker.progress.services.paths import paths_with_courses

bp = Blueprint("catalog", __name__)


@bp.get("/")
def home():
    """Show the learning paths and their courses."""
    return render_template("catalog/home.html", paths=paths_with_courses(db_session()))


@bp.get("/catalog")
def catalog():
    """Show the whole catalog as loaded from seed/."""
    return render_template("catalog/catalog.html", catalog=catalog_dict(db_session()))
