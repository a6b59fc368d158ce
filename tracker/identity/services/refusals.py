"""A refused sign-in through the provider: what the page says, what the account trail keeps."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from tracker.audit.accounts import record_account_event
from tracker.i18n import Message, msg
from tracker.identity.rules import REFUSALS


class SignInRefused(Exception):
    """The provider's answer does not sign anyone in.

    `kind` chooses the message of rules.REFUSALS; `reason` is the finer cause the
    account trail records (for a token: which check failed).
    """

    def __init__(
        self,
        kind: str,
        reason: str | None = None,
        *,
        email: str = "",
        engineer_id: int | None = None,
        **params: Any,
    ) -> None:
        if kind not in REFUSALS:
            raise ValueError(f"unknown refusal {kind!r}")
        super().__init__(reason or kind)
        self.kind = kind
        self.reason = reason or kind
        self.email = email
        self.engineer_id = engineer_id
        self.params = params

    def message(self, provider: str) -> Message:
        """Return the page's message, naming the provider."""
        return msg(REFUSALS[self.kind], provider=provider, email=self.email, **self.params)


def record_refusal(session: Session, refusal: SignInRefused, address: str) -> None:
    """Add the refused sign-in to the account trail."""
    record_account_event(
        session,
        "sign_in_failed",
        engineer_id=refusal.engineer_id,
        email=refusal.email,
        method="oidc",
        address=address,
        detail={"reason": refusal.reason},
    )
