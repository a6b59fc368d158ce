"""Reading an uploaded CSV file: its text, its header and its rows with their line numbers."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from tracker.errors import ValidationError
from tracker.i18n import N_, join, msg
from tracker.imports.rules import MAX_IMPORT_ROWS
from tracker.imports.schemas import Row
from tracker.imports.services.kinds import ImportKind

EMPTY = N_("the file is empty; it needs a header line and rows")


def decode_csv(data: bytes) -> str:
    """Return an uploaded file's text; refuse an empty or non-UTF-8 file."""
    if not data.strip():
        raise ValidationError({"file": EMPTY})
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ValidationError(
            {
                "file": msg(
                    "the file is not UTF-8 text (line %(line)s holds a byte that is not "
                    "UTF-8); save it as CSV UTF-8 and upload it again",
                    line=line,
                )
            }
        ) from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise ValidationError(
            {
                "file": msg(
                    "the file is not CSV text (line %(line)s holds a NUL character)", line=line
                )
            }
        )
    return text


def _read_header(reader: Iterator[list[str]], kind: ImportKind) -> list[str]:
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        raise ValidationError({"file": EMPTY}) from None
    if len(header) == 1 and ";" in header[0]:
        # A spreadsheet saved in a language whose decimal mark is a comma: the one
        # "column" is every name run together, so naming it unknown and the real
        # ones missing would only bury the fix.
        problems: list[str] = [
            N_("the columns are separated by semicolons: save the file with commas")
        ]
    else:
        problems = _column_problems(header, kind)
    if problems:
        raise ValidationError(
            {
                "file": msg(
                    "line 1 (header): %(problems)s. %(columns_rule)s",
                    problems=join(problems),
                    columns_rule=kind.columns_rule(),
                )
            }
        )
    return header


def _column_problems(header: list[str], kind: ImportKind) -> list[str]:
    """Name the header's doubled, missing and unknown columns."""
    problems: list[str] = []
    duplicates = sorted({h for h in header if header.count(h) > 1})
    if duplicates:
        problems.append(msg("column %(columns)s appears twice", columns=", ".join(duplicates)))
    missing = [c for c in kind.columns if c not in header and c not in kind.optional]
    if len(missing) == 1:
        problems.append(msg("missing column %(columns)s", columns=missing[0]))
    elif missing:
        problems.append(msg("missing columns %(columns)s", columns=", ".join(missing)))
    extra = [h for h in header if h not in kind.columns]
    if extra:
        named = join([repr(h) if h else N_("(empty)") for h in extra], ", ")
        problems.append(msg("unknown column %(columns)s", columns=named))
    return problems


def read_rows(text: str, kind: ImportKind) -> list[tuple[int, Row]]:
    """Return the file's rows with their line numbers (the header is line 1); check the header."""
    if not text.strip():
        raise ValidationError({"file": EMPTY})
    reader = csv.reader(io.StringIO(text, newline=""))
    rows: list[tuple[int, Row]] = []
    try:
        header = _read_header(reader, kind)
        last = reader.line_num
        for record in reader:
            line, last = last + 1, reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != len(header):
                row = {"_width": str(len(record)), "_expected": str(len(header))}
            else:
                row = {col: cell.strip() for col, cell in zip(header, record, strict=True)}
                if "password" in row:
                    row["password_raw"] = record[header.index("password")]
            rows.append((line, row))
    except csv.Error as exc:
        raise ValidationError(
            {
                "file": msg(
                    "line %(line)s: the file is not readable CSV (%(error)s)",
                    line=reader.line_num,
                    error=str(exc),
                )
            }
        ) from None
    if not rows:
        raise ValidationError({"file": N_("the file has a header but no rows to import")})
    if len(rows) > MAX_IMPORT_ROWS:
        raise ValidationError(
            {
                "file": msg(
                    "a file holds at most %(max)s rows; split it into several files",
                    max=MAX_IMPORT_ROWS,
                )
            }
        )
    return rows
