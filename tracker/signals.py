"""Signals through which a page shows panels of features above its own package.

A page of a lower package (the profile in people, the team page in readiness,
the dashboard in progress) may not import a package above it (reminders,
careers). It sends a signal with the object it shows; the higher package's
views connect a receiver that returns template variables for it, as Indico's
modules extend each other's pages. The app factory imports every package's
views, so every receiver is connected before the first request.
"""

from __future__ import annotations

from typing import Any

from blinker import Namespace, Signal

_signals = Namespace()

showing_profile = _signals.signal("showing-profile")
"""Sent with the engineer whose profile is shown."""

showing_team = _signals.signal("showing-team")
"""Sent with the team whose readiness page is shown."""

showing_dashboard = _signals.signal("showing-dashboard")
"""Sent with the engineer whose dashboard is shown; keyword `on` is the page's date."""

showing_credentials = _signals.signal("showing-credentials")
"""Sent with the engineer whose credentials page is shown; keyword `held` lists them."""

signing_out = _signals.signal("signing-out")
"""Sent with the engineer signing out; a receiver may return a URL to send them on to."""


def first_answer(signal: Signal, sender: object, **kwargs: Any) -> Any:
    """Return the first answer of `signal`'s receivers that is not None."""
    for _receiver, answer in signal.send(sender, **kwargs):
        if answer is not None:
            return answer
    return None


def template_context(signal: Signal, sender: object, **kwargs: Any) -> dict[str, Any]:
    """Return the template variables every receiver of `signal` gives for `sender`."""
    context: dict[str, Any] = {}
    for _receiver, variables in signal.send(sender, **kwargs):
        context.update(variables or {})
    return context


erasing_person = _signals.signal("erasing-person")
"""Sent with the engineer whose personal data is being erased, keyword `session`: a higher
package clears what it alone holds about them (SCIM its external id), in the same transaction."""
