"""Read a seed file: parse the TOML, validate it against the schema, check its cross-references."""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from tracker.catalog.schemas import (
    ENTRY_KEYS,
    NO_SPANISH,
    CredentialEntry,
    ExamEntry,
    GroupEntry,
    SeedEntry,
    SeedFile,
)


class SeedError(Exception):
    """The seed file cannot be loaded; the message names the file and the entry."""


def read_seed(path: str | Path) -> SeedFile:
    """Parse and validate a seed file, checking every cross-reference."""
    path = Path(path)
    file = str(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SeedError(f"{file}: no such file") from None
    except UnicodeDecodeError as exc:
        raise SeedError(f"{file}: not UTF-8 text ({exc.reason})") from None
    except tomllib.TOMLDecodeError as exc:
        raise SeedError(f"{file}: bad TOML syntax: {exc}") from None

    try:
        data = SeedFile.model_validate(raw)
    except ValidationError as exc:
        raise SeedError(_describe(_first(exc.errors()), raw, file)) from None
    _name_entries(data, file)
    _check_references(data)
    return data


# --- naming entries in messages ----------------------------------------------------------


def _entry_label(where: str, section: str, index: int, entry: Any) -> str:
    """Return e.g. "seed/catalog.toml: courses #3 (GPU-ARCH)" (index counts from 0)."""
    key = ENTRY_KEYS.get(section, "code")
    name = entry.get(key) if isinstance(entry, dict) else None
    return f"{where}: {section} #{index + 1}" + (f" ({name})" if name is not None else "")


def _name_entries(data: SeedFile, file: str) -> None:
    """Give every entry its label, and refuse an entry whose key repeats an earlier one's."""
    sections: list[tuple[str, str, Sequence[SeedEntry]]] = [
        (file, section, getattr(data, section))
        for section in SeedFile.model_fields
        if section != "roi"
    ]
    sections += [
        (f"{file}: roi.{kind}", "roi_lines", getattr(data.roi, kind))
        for kind in ("investment", "returns")
    ]
    for where, section, entries in sections:
        _name_section(where, section, entries)
    for template in data.templates:
        _name_section(template.where, "slots", template.slots)


def _name_section(where: str, section: str, entries: Sequence[SeedEntry]) -> None:
    key = ENTRY_KEYS.get(section, "code")
    seen: set[Any] = set()
    for index, entry in enumerate(entries):
        entry._where = _entry_label(where, section, index, {key: getattr(entry, key)})
        value = getattr(entry, key)
        if value in seen:
            raise SeedError(f"{entry.where}: duplicate {key} {value!r}")
        seen.add(value)


def _first(errors: list[ErrorDetails]) -> ErrorDetails:
    """Return the error to report: the file's order, an entry's unknown fields first."""
    first_seen: dict[tuple[int | str, ...], int] = {}
    for position, error in enumerate(errors):
        for n in range(1, len(error["loc"]) + 1):
            first_seen.setdefault(error["loc"][:n], position)

    def order(error: ErrorDetails) -> list[tuple[int, str, int]]:
        loc = error["loc"]
        key = [(1, "", first_seen[loc[:n]]) for n in range(1, len(loc) + 1)]
        if error["type"] == "extra_forbidden":
            key[-1] = (0, str(loc[-1]), 0)
        return key

    return min(errors, key=order)


_ROI_SHAPE = "[roi] holds only 'investment' and 'returns' lists"


def _describe(error: ErrorDetails, raw: dict[str, Any], file: str) -> str:
    """Return the message for a schema error: the file, the entry, the field and the rule."""
    loc, kind = error["loc"], error["type"]
    section = str(loc[0])
    if len(loc) == 1:
        if kind == "extra_forbidden":
            return f"{file}: unknown section [{section}]"
        if section == "roi":
            return f"{file}: {_ROI_SHAPE}"
        return f"{file}: [{section}] must be a list of tables ([[{section}]])"
    where, rest, entries = file, loc[1:], raw[section]
    if section == "roi":
        if kind == "extra_forbidden" and len(loc) == 2:
            return f"{file}: {_ROI_SHAPE}"
        where, rest, entries = f"{file}: roi.{loc[1]}", loc[2:], entries[loc[1]]
        section = "roi_lines"
        if not rest:
            return f"{where}: [{section}] must be a list of tables ([[{section}]])"
    index, *fields = rest
    assert isinstance(index, int)
    entry = entries[index]
    label = _entry_label(where, section, index, entry)
    if not fields:
        return f"{label}: must be a table"
    if section == "templates" and fields[0] == "slots" and len(fields) > 1:
        slot, *fields = fields[1:]
        if not fields:
            return f"{label}: slots: must be a list of tables"
        assert isinstance(slot, int)
        entry = entry["slots"][slot]
        label = _entry_label(label, "slots", slot, entry)
    field = fields[0]
    if kind == "missing":
        return f"{label}: missing field {field!r}"
    if kind == NO_SPANISH:
        ctx = error.get("ctx", {})
        of = f"the Spanish of {ctx['english_field']} {ctx['english']!r}"
        if isinstance(entry, dict) and field in entry:
            return f"{label}: {field}: must be a non-empty text ({of})"
        return f"{label}: missing field {field!r} ({of})"
    if kind == "extra_forbidden":
        return f"{label}: unknown field {field!r}"
    return f"{label}: {field}: {_rule(error)}"


def _rule(error: ErrorDetails) -> str:
    """Return the rule a value broke, in the seed file's words."""
    kind, ctx, got = error["type"], error.get("ctx", {}), error["input"]
    if kind == "greater_than_equal":
        return f"must be at least {ctx['ge']} (got {got})"
    if kind == "less_than_equal":
        return f"must be at most {ctx['le']} (got {got})"
    rules = {
        "int_type": "must be a whole number",
        "bool_type": "must be true or false",
        "string_type": "must be a non-empty text",
        "string_too_short": "must be a non-empty text",
        "list_type": "must be a list of tables",
        "model_type": "must be a list of tables",
    }
    return rules.get(kind, error["msg"])


# --- cross-references ------------------------------------------------------------------


def _check_references(data: SeedFile) -> None:
    """Raise on a code that names nothing, or a range that runs backwards."""
    shared: list[ExamEntry | CredentialEntry | GroupEntry] = [*data.exams, *data.credentials]
    shared += data.groups
    credential_codes = [c.code for c in shared]
    duplicates = {c for c in credential_codes if credential_codes.count(c) > 1}
    if duplicates:
        code = sorted(duplicates)[0]
        entry = next(e for e in shared if e.code == code)
        raise SeedError(
            f"{entry.where}: duplicate code {code!r}"
            " (exams, credentials and groups share one set of codes)"
        )
    credentials = set(credential_codes)
    plain = {e.code for e in data.exams} | {c.code for c in data.credentials}
    exams = {e.code for e in data.exams}
    courses = {c.code for c in data.courses}
    roles = {r.code for r in data.job_roles}

    def need(codes: Iterable[str], pool: set[str], label: str, what: str) -> None:
        for code in codes:
            if code not in pool:
                raise SeedError(f"{label}: unknown {what} {code!r}")

    for level in data.levels:
        need(level.requires, credentials, level.where, "credential in requires")
        if level.salary_min > level.salary_max:
            raise SeedError(f"{level.where}: salary_min is above salary_max")
    for exam in data.exams:
        need(exam.prerequisites, credentials, exam.where, "exam or credential in prerequisites")
        if exam.code in exam.prerequisites:
            raise SeedError(f"{exam.where}: an exam cannot be its own prerequisite")
    _refuse_prerequisite_cycles(data)
    for group in data.groups:
        need(group.members, plain, group.where, "exam or credential in members")
    for path in data.paths:
        if path.exam is not None:
            need([path.exam], exams, path.where, "exam")
        need(path.courses, courses, path.where, "course")
    for template in data.templates:
        need(template.credentials, credentials, template.where, "credential")
        if template.max_gpus is not None and template.max_gpus < template.min_gpus:
            raise SeedError(f"{template.where}: max_gpus is below min_gpus")
        if template.cost_min > template.cost_max:
            raise SeedError(f"{template.where}: cost_min is above cost_max")
        for slot in template.slots:
            need([slot.role], roles, slot.where, "job role")
            need(slot.certifications, credentials, slot.where, "credential")
            if slot.min_level > slot.max_level:
                raise SeedError(f"{slot.where}: min_level is above max_level")
    bands = sorted(data.templates, key=lambda t: t.min_gpus)
    for lower, upper in itertools.pairwise(bands):
        if lower.max_gpus is None or lower.max_gpus >= upper.min_gpus:
            raise SeedError(f"{upper.where}: its GPU band overlaps {lower.code!r}")
    for strategy in data.strategies:
        for low, high in (
            ("min_weeks", "max_weeks"),
            ("cost_min", "cost_max"),
            ("discount_min_percent", "discount_max_percent"),
        ):
            low_value, high_value = getattr(strategy, low), getattr(strategy, high)
            if (low_value is None) != (high_value is None) or (
                low_value is not None and low_value > high_value
            ):
                raise SeedError(f"{strategy.where}: {low} and {high} must both be given, in order")


def _refuse_prerequisite_cycles(data: SeedFile) -> None:
    """Raise when exams require each other in a loop: none of them could ever be taken."""
    members = {g.code: set(g.members) for g in data.groups}
    requires = {
        e.code: {m for p in e.prerequisites for m in members.get(p, {p})} for e in data.exams
    }
    labels = {e.code: e.where for e in data.exams}

    def visit(code: str, trail: tuple[str, ...]) -> None:
        for needed in sorted(requires.get(code, ())):
            if needed == trail[0]:
                loop = " -> ".join((*trail, needed))
                raise SeedError(f"{labels[trail[0]]}: prerequisites form a loop: {loop}")
            if needed not in trail:
                visit(needed, (*trail, needed))

    for code in requires:
        visit(code, (code,))
