"""The bodies an endpoint receives: the generic JSON, a Slack message, a Teams Adaptive Card.

Every delivery keeps the generic payload ({"type", "timestamp", "data"}, as
Standard Webhooks describes it); an endpoint's format turns it into the body
sent, the same at every attempt. Slack's incoming webhooks take {"text",
"blocks"}; a Teams Workflows webhook ("When a Teams webhook request is
received") takes a message whose attachment is an Adaptive Card.
"""

from __future__ import annotations

import json
from typing import Any

from tracker.webhooks.rules import ADAPTIVE_CARD_VERSION

ADAPTIVE_CARD = "application/vnd.microsoft.card.adaptive"
ADAPTIVE_CARD_SCHEMA = "http://adaptivecards.io/schemas/adaptive-card.json"

TITLES = {
    "certification.earned": "Certification earned",
    "certification.renewed": "Certification renewed",
    "certification.expiring": "Certification expiring",
    "certification.lapsed": "Certification lapsed",
    "certification.revoked": "Certification revoked",
    "readiness.dropped": "Readiness dropped",
    "hours.logged": "Hours logged",
}


def _days(count: int) -> str:
    return f"{count} day" if count == 1 else f"{count} days"


def summary(payload: dict[str, Any]) -> str:
    """Return one sentence that says what the event is, for people reading a channel."""
    event, data = payload["type"], payload["data"]
    who = data.get("engineer", {}).get("name", "")
    cert = data.get("certification") or {}
    code, expires = cert.get("code", ""), cert.get("expires_on")
    until = f"valid until {expires}" if expires else "with no expiry"
    if event == "certification.earned":
        return f"{who} earned {code} ({cert.get('name', '')}), {until}."
    if event == "certification.renewed":
        return f"{who} renewed {code}, now {until}."
    if event == "certification.expiring":
        return f"{who}'s {code} expires in {_days(data['days_left'])}, on {expires}."
    if event == "certification.lapsed":
        return f"{who}'s {code} expired on {expires}."
    if event == "certification.revoked":
        return f"{who}'s {code} was revoked by its issuer ({data['reason']})."
    if event == "readiness.dropped":
        team = data["team"]["name"]
        return f"{team}'s readiness dropped: {who}'s {code} lapsed on {expires} ({data['impact']})."
    if event == "hours.logged":
        course = data["course"]
        return f"{who} logged {data['hours']} h on {course['code']} on {data['date']}."
    return event


def _slack_escaped(text: str) -> str:
    # Slack's mrkdwn reads &, < and > as markup: escaped, a name is only text.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def slack_message(payload: dict[str, Any]) -> dict[str, Any]:
    """Return a Slack incoming-webhook message: the summary, and a context line."""
    text = _slack_escaped(summary(payload))
    return {
        "text": text,
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": text}},
            {
                "type": "context",
                "elements": [
                    {"type": "mrkdwn", "text": f"`{payload['type']}` · {payload['timestamp']}"}
                ],
            },
        ],
    }


def teams_message(payload: dict[str, Any]) -> dict[str, Any]:
    """Return a Teams Workflows message: one Adaptive Card with a title, the summary and facts."""
    card = {
        "$schema": ADAPTIVE_CARD_SCHEMA,
        "type": "AdaptiveCard",
        "version": ADAPTIVE_CARD_VERSION,
        "body": [
            {
                "type": "TextBlock",
                "text": TITLES.get(payload["type"], payload["type"]),
                "weight": "Bolder",
                "size": "Medium",
                "wrap": True,
            },
            {"type": "TextBlock", "text": summary(payload), "wrap": True},
            {
                "type": "FactSet",
                "facts": [
                    {"title": "Event", "value": payload["type"]},
                    {"title": "When", "value": payload["timestamp"]},
                ],
            },
        ],
    }
    return {
        "type": "message",
        "attachments": [{"contentType": ADAPTIVE_CARD, "contentUrl": None, "content": card}],
    }


def body(format_: str, payload: dict[str, Any]) -> str:
    """Return the JSON text an endpoint of `format_` receives for `payload`."""
    if format_ == "slack":
        message = slack_message(payload)
    elif format_ == "teams":
        message = teams_message(payload)
    else:
        message = payload
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
