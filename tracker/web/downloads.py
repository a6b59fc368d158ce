"""Files a page answers for saving: CSV a spreadsheet opens safely."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from flask import Response


def csv_download(rows: Iterable[Iterable[object]], filename: str) -> Response:
    """Answer `rows` as a CSV file to save as `filename`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow([_spreadsheet_safe(value) for value in row])
    return Response(
        buffer.getvalue(),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


def _spreadsheet_safe(value: object) -> object:
    """Quote text a spreadsheet would run as a formula (= + - @, or a tab or return first)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
