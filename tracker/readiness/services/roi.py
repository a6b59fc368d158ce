"""Return on investment of named investment and return lines."""

from __future__ import annotations

from dataclasses import dataclass

from tracker.errors import ValidationError
from tracker.i18n import N_
from tracker.readiness.rules import (
    MAX_ROI_AMOUNT,
    MAX_ROI_LABEL_LENGTH,
    MAX_ROI_LINES,
    ROI_LABEL_RULE,
    ROI_LINE_RULE,
    ROI_LINES_RULE,
)


@dataclass(frozen=True)
class Roi:
    investment_total: int
    returns_total: int

    @property
    def first_year_roi_percent(self) -> int:
        """(returns - investment) / investment, in whole percent (rounded down)."""
        return (self.returns_total - self.investment_total) * 100 // self.investment_total

    @property
    def ongoing_roi_percent(self) -> int:
        """Later years, with no new investment: returns / first-year investment."""
        return self.returns_total * 100 // self.investment_total


def roi(investment: dict[str, int], returns: dict[str, int]) -> Roi:
    """Return the ROI of named investment and return lines (currency units)."""
    errors: dict[str, str] = {}
    for kind, lines in (("investment", investment), ("returns", returns)):
        if len(lines) > MAX_ROI_LINES:
            errors[kind] = ROI_LINES_RULE
        elif any(len(name) > MAX_ROI_LABEL_LENGTH for name in lines):
            errors[kind] = ROI_LABEL_RULE
        for name, amount in lines.items():
            whole = isinstance(amount, int) and not isinstance(amount, bool)
            if not whole or not 0 <= amount <= MAX_ROI_AMOUNT:
                errors[f"{kind}.{name}"] = ROI_LINE_RULE
    total = sum(investment.values()) if not errors else 0
    if not errors and total <= 0:
        errors["investment"] = N_("the investment must be more than 0")
    if errors:
        raise ValidationError(errors)
    return Roi(total, sum(returns.values()))
