"""Delivering to a real HTTP receiver: signed per Standard Webhooks, at least once, retried."""

from __future__ import annotations

import datetime as dt
import json

from tests import factories
from tests.live import free_port
from tests.webhooks.conftest import HANG_UP, deliveries, endpoint_for, send
from tests.webhooks.helpers import log
from tracker.clock import utcnow
from tracker.outbox import RETRY_BASE, backoff
from tracker.webhooks.models import WebhookDelivery
from tracker.webhooks.rules import MAX_ATTEMPTS, ROTATION_OVERLAP
from tracker.webhooks.services.delivery import retry_failed
from tracker.webhooks.services.endpoints import rotate_secret

TODAY = factories.TODAY


def test_a_delivery_arrives_signed_and_the_receiver_verifies_it(app, db, receiver):
    endpoint = endpoint_for(db, receiver, ["hours.logged"])
    entry = log(db)
    report = send(app)
    assert (report.sent, report.retried, report.failed) == (1, 0, 0)
    (got,) = receiver.received
    assert got.verified_with == [endpoint.secret]
    assert got.headers["webhook-id"].startswith("msg_")
    assert got.headers["content-type"] == "application/json"
    assert got.headers["webhook-signature"].startswith("v1,")
    assert abs(int(got.headers["webhook-timestamp"]) - utcnow().timestamp()) < 60
    body = got.json
    assert body["type"] == "hours.logged"
    assert body["timestamp"].endswith("Z")
    assert body["data"] == {
        "id": entry.id,
        "engineer": {"id": entry.engineer_id, "name": "Ada"},
        "course": {"id": entry.course_id, "code": "FDL", "title": entry.course_title},
        "date": TODAY.isoformat(),
        "hours": 1.5,
        "note": "reading",
    }
    (row,) = deliveries(db)
    assert (row.status, row.attempts, row.webhook_id) == ("delivered", 1, got.webhook_id)
    assert row.sent_at is not None and row.last_error is None
    # Nothing is sent twice.
    assert send(app).sent == 0 and len(receiver.received) == 1


def test_a_receiver_that_answered_500_gets_the_same_event_again_later(app, db, receiver):
    endpoint_for(db, receiver, ["hours.logged"])
    log(db)
    now = utcnow()
    receiver.answer_next(500)
    assert send(app, now).retried == 1
    (row,) = deliveries(db)
    assert (row.status, row.attempts) == ("pending", 1)
    assert row.last_error.startswith("answered 500")
    assert row.next_attempt_at == now + RETRY_BASE
    # Not before its back-off...
    assert send(app, now + RETRY_BASE / 2).sent == 0
    assert len(receiver.received) == 1
    # ...then again, the same event under the same webhook-id, verified both times.
    assert send(app, now + RETRY_BASE).sent == 1
    first, second = receiver.received
    assert (first.status, second.status) == (500, 204)
    assert first.webhook_id == second.webhook_id
    assert first.body == second.body
    assert first.verified_with and second.verified_with
    (row,) = deliveries(db)
    assert (row.status, row.attempts) == ("delivered", 2)


def test_an_endpoint_that_never_answers_2xx_fails_after_the_last_attempt(app, db, receiver):
    endpoint_for(db, receiver, ["hours.logged"])
    log(db)
    now = utcnow()
    receiver.answer_next(*[503] * MAX_ATTEMPTS)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        report = send(app, now)
        (row,) = deliveries(db)
        assert row.attempts == attempt
        if attempt < MAX_ATTEMPTS:
            assert report.retried == 1 and row.status == "pending"
            assert row.next_attempt_at == now + backoff(attempt)
            now = row.next_attempt_at
    assert report.failed == 1 and row.status == "failed"
    assert len({r.webhook_id for r in receiver.received}) == 1
    # An admin's retry: one more attempt, which the receiver now takes.
    retry_failed(db, row, now)
    assert send(app, now).sent == 1
    assert deliveries(db)[0].status == "delivered"
    assert len(receiver.received) == MAX_ATTEMPTS + 1


def test_only_a_failed_delivery_can_be_retried(db, receiver):
    endpoint_for(db, receiver, ["hours.logged"])
    log(db)
    (row,) = deliveries(db)
    try:
        retry_failed(db, row, utcnow())
    except Exception as exc:
        assert "only a failed delivery" in str(exc)
    else:
        raise AssertionError("a pending delivery was retried")


def test_an_unreachable_endpoint_is_retried_with_the_reason(app, db, receiver):
    endpoint = endpoint_for(db, receiver, ["hours.logged"])
    endpoint.url = f"http://127.0.0.1:{free_port()}/gone"
    db.flush()
    log(db)
    assert send(app).retried == 1
    (row,) = deliveries(db)
    assert row.status == "pending"
    assert row.last_error.startswith("cannot deliver")


def test_a_receiver_that_hangs_up_unanswered_is_retried(app, db, receiver):
    endpoint_for(db, receiver, ["hours.logged"])
    log(db)
    receiver.answer_next(HANG_UP)
    assert send(app).retried == 1
    assert deliveries(db)[0].last_error.startswith("cannot deliver: RemoteDisconnected")
    assert send(app, utcnow() + RETRY_BASE).sent == 1


def test_a_redirect_is_not_followed(app, db, receiver):
    endpoint_for(db, receiver, ["hours.logged"])
    log(db)
    receiver.answer_next(302)
    assert send(app).retried == 1
    assert len(receiver.received) == 1  # the Location (the receiver itself) was not asked
    assert deliveries(db)[0].last_error.startswith("answered 302")


def test_during_a_rotation_both_secrets_sign_and_after_it_only_the_new(app, db, receiver):
    endpoint = endpoint_for(db, receiver, ["hours.logged"])
    old = endpoint.secret
    rotate_secret(db, endpoint, utcnow())
    new = endpoint.secret
    assert new != old and new.startswith("whsec_")
    receiver.secrets = [new, old]
    log(db)
    send(app)
    (got,) = receiver.received
    assert got.headers["webhook-signature"].count("v1,") == 2
    assert got.verified_with == [new, old]
    # Once the overlap is over, the old secret no longer verifies.
    endpoint.previous_until = utcnow() - dt.timedelta(seconds=1)
    db.flush()
    log(db, hours=2)
    send(app)
    assert receiver.received[1].verified_with == [new]
    assert receiver.received[1].headers["webhook-signature"].count("v1,") == 1
    assert endpoint.previous_until < utcnow() + ROTATION_OVERLAP


def test_slack_and_teams_endpoints_get_their_own_message(app, db, receiver):
    slack = endpoint_for(db, receiver, ["hours.logged"], "slack")
    teams = endpoint_for(db, receiver, ["hours.logged"], "teams")
    log(db, who=factories.engineer(db, name="Ada <ops> & co"))
    assert send(app).sent == 2
    by_id = {r.webhook_id.rsplit("_", 1)[-1]: r for r in receiver.received}
    message = by_id[str(slack.id)].json
    assert message["text"] == "Ada &lt;ops&gt; &amp; co logged 1.5 h on FDL on 2026-11-29."
    assert message["blocks"][0]["text"] == {"type": "mrkdwn", "text": message["text"]}
    card = by_id[str(teams.id)].json
    assert card["type"] == "message"
    (attachment,) = card["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    content = attachment["content"]
    assert (content["type"], content["version"]) == ("AdaptiveCard", "1.4")
    assert content["body"][0]["text"] == "Hours logged"
    assert "Ada <ops> & co logged 1.5 h on FDL" in content["body"][1]["text"]
    # Signed like any other delivery.
    assert all(r.verified_with for r in receiver.received)


def test_tracker_remind_delivers_pending_webhooks_too(app, db, receiver, runner):
    endpoint_for(db, receiver, ["hours.logged"])
    log(db)
    receiver.answer_next(500)
    send(app)  # failed once: waits for its back-off
    result = runner.invoke(args=["remind", "--today", TODAY.isoformat(), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output.strip().splitlines()[-1])
    assert report["webhooks"] == {"sent": 1, "retried": 0, "failed": 0}
    assert [r.status for r in receiver.received] == [500, 204]
    result = runner.invoke(args=["remind", "--today", TODAY.isoformat()])
    assert result.output.strip() == "queued 0, sent 0, retried 0, failed 0"


def test_a_removed_endpoints_deliveries_go_with_it(app, db, receiver):
    from tracker.webhooks.services.endpoints import remove_endpoint

    endpoint = endpoint_for(db, receiver, ["hours.logged"])
    log(db)
    remove_endpoint(db, endpoint)
    assert db.query(WebhookDelivery).count() == 0
    assert send(app).sent == 0 and receiver.received == []
