"""The readiness pages' drawings: what a team page and the organisation page repeat, drawn once.

A heat map draws hundreds of cells and badges, and a macro call costs many
times a lookup: each helper here is a template global that draws its macro
through a `Drawings`, once per set of arguments and language. The macros stay
the one drawing of each thing; the keys name everything a drawing shows, so
a drawing is drawn again as soon as something on it changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from flask import Flask, request
from markupsafe import Markup, escape

from tracker.catalog.services.snapshot import TemplateInfo
from tracker.i18n import in_locale
from tracker.progress.rules import EXPIRING_WITHIN_DAYS
from tracker.readiness.services.heatmap import HeatCell, HeatRow
from tracker.readiness.services.history import HistoryPoint, by_month
from tracker.readiness.services.organisation import SummaryRow
from tracker.readiness.services.team_page import TeamPage
from tracker.web.drawings import Drawings
from tracker.web.language import current_locale

DRAWN_KEPT = 4096
# Year charts remembered: each holds a year of points and its drawing, a few kB.
CHARTS_KEPT = 64
# Whole sections remembered (an organisation table's page of 50 rows, a team's heat
# map or path progress), per language and everything they show.
SECTIONS_KEPT = 64
# Stands for a drawing's element id until the drawing is given its own.
ID = "drawn-id-placeholder"


def history_line(
    points: Sequence[HistoryPoint], left: float, top: float, width: float, height: float
) -> str:
    """Return an SVG polyline's points: each day's percent across the box, 100 % at its top.

    A year of daily points is hundreds of coordinates: formatted here in one
    pass rather than by a template loop, which costs several times as much.
    """
    if not points:
        return ""
    first = points[0].day
    span = max((points[-1].day - first).days, 1)
    return " ".join(
        [
            f"{left + (p.day - first).days / span * width:.1f},"
            f"{top + (1000 - p.percent_tenths) / 1000 * height:.1f}"
            for p in points
        ]
    )


def add_drawing_helpers(app: Flask) -> None:
    """Give the app's templates macros drawn once per set of arguments.

    A heat map draws hundreds of cells and badges, and a macro call costs many
    times a lookup; the macros stay the one drawing of a cell and a badge.
    `cached_badge(status, days_left)` is _macros/status.html's `status_badge`,
    `heat_cells(cells)` the `heat_cell` of _macros/readiness.html for each cell,
    `progress_bars(row)` the
    `progress_bar` of each of a member's paths, `cached_history_chart(points,
    title, id)` the `history_chart` of a year of snapshots. Whole sections:
    `cached_heat_map(page)` is the `heat_map` of a team page,
    `cached_path_progress(rows)` its `path_progress`, and
    `cached_organisation_table(...)` _macros/organisation.html's table.
    """
    env = app.jinja_env
    drawings = Drawings(app, DRAWN_KEPT)
    charts = Drawings(app, CHARTS_KEPT)
    sections = Drawings(app, SECTIONS_KEPT)
    readiness, status = "_macros/readiness.html", "_macros/status.html"

    def cached_badge(status_name: str, days_left: int | None = None) -> Markup:
        return drawings.draw(status, "status_badge", status_name, days_left)

    def heat_cells(cells: list[HeatCell]) -> Markup:
        locale = current_locale()
        return Markup("").join(
            [
                drawings.draw(
                    readiness, "heat_cell", c.status.value, c.days_left, c.verified, locale=locale
                )
                for c in cells
            ]
        )

    def progress_bars(row: HeatRow) -> Markup:
        # The bar drawn once per label and figures, its element ids put in after:
        # a team page draws one bar per member and path.
        locale = current_locale()
        return Markup("").join(
            [
                Markup(
                    drawings.draw(
                        status,
                        "progress_bar",
                        in_locale(p.path, locale),
                        p.counted,
                        p.required,
                        ID,
                        locale=locale,
                    ).replace(ID, escape(f"p-{row.member.id}-{p.path.code}"))
                )
                for p in row.paths
            ]
        )

    def cached_history_chart(points: Sequence[HistoryPoint], title: str, id: str) -> Markup:
        # Keyed by the points themselves: a year's chart is drawn again only when
        # a snapshot changed, which is at most a few times a day.
        def draw() -> str:
            return charts.macro(readiness, "history_chart")(points, by_month(points), title, id)

        return charts.remembered((tuple(points), str(title), id), draw)

    def cached_organisation_table(
        rows: Sequence[SummaryRow],
        templates: dict[int, TemplateInfo],
        sort: str,
        descending: bool,
        args: dict[str, str],
        filtered: bool,
        expiring_within: int,
        trend_days: int,
    ) -> Markup:
        # Keyed by everything it shows (the rows' figures and names, the bands as
        # the language names them, the order and the links' query): drawn again
        # once something on it changed.
        locale = current_locale()
        names = {id: in_locale(t, locale) for id, t in templates.items()}
        bands = tuple(names[r.template_id] for r in rows)
        query = tuple(args.items())
        shown = (sort, descending, query, filtered, expiring_within, trend_days)

        def draw() -> str:
            table = sections.macro("_macros/organisation.html", "organisation_table")
            return table(rows, bands, *shown)

        key = ("organisation table", tuple(rows), bands, *shown, request.script_root)
        return sections.remembered(key, draw, locale)

    def cached_heat_map(page: TeamPage) -> Markup:
        # Keyed by what it shows: the columns as the language names them, and
        # each member's link, name, level and cells.
        locale = current_locale()
        columns = tuple([(c.code, in_locale(c, locale)) for c in page.columns])
        rows = tuple(
            [
                (
                    r.member.id,
                    r.member.name,
                    r.member.level,
                    tuple([(c.status, c.days_left, c.verified) for c in r.cells]),
                )
                for r in page.rows
            ]
        )

        def draw() -> str:
            return sections.macro(readiness, "heat_map")(page)

        key = ("heat map", columns, rows, request.script_root)
        return sections.remembered(key, draw, locale)

    def cached_path_progress(rows: Sequence[HeatRow]) -> Markup:
        # Keyed by each member's link and name, and each path's name and figures.
        locale = current_locale()
        shown = tuple(
            [
                (
                    r.member.id,
                    r.member.name,
                    tuple(
                        [
                            (p.path.code, in_locale(p.path, locale), p.counted, p.required)
                            for p in r.paths
                        ]
                    ),
                )
                for r in rows
            ]
        )

        def draw() -> str:
            return sections.macro(readiness, "path_progress")(rows)

        return sections.remembered(("path progress", shown, request.script_root), draw, locale)

    env.globals["cached_badge"] = cached_badge
    env.globals["cached_heat_map"] = cached_heat_map
    env.globals["cached_path_progress"] = cached_path_progress
    env.globals["cached_organisation_table"] = cached_organisation_table
    env.globals["cached_history_chart"] = cached_history_chart
    env.globals["progress_bars"] = progress_bars
    env.globals["heat_cells"] = heat_cells
    env.globals["history_line"] = history_line
    # The heat map's legend states the window its cells are judged by.
    env.globals["expiring_within_days"] = EXPIRING_WITHIN_DAYS
