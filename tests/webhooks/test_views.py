"""The webhooks page under /admin: register, rotate, remove; the latest deliveries, retried."""

from __future__ import annotations

from sqlalchemy import select

from tests import factories
from tests.helpers import WEBHOOK_HOSTS, confirmation, count
from tracker.webhooks.models import WebhookDelivery, WebhookEndpoint
from tracker.webhooks.services.endpoints import add_endpoint

PAGE = "/admin/webhooks"
URL = "https://hooks.example.com/in"
SPANISH = {"Accept-Language": "es"}


def admin(db, auth):
    person = factories.engineer(db, access_role="admin")
    auth.sign_in(person)
    return person


def failed_delivery(db, endpoint) -> WebhookDelivery:
    return factories.webhook_delivery(
        db, endpoint, webhook_id="msg_page_1", attempts=10, last_error="answered 500: boom"
    )


def test_only_admins_reach_the_page(client, auth, db):
    auth.sign_in(factories.engineer(db, access_role="manager"))
    assert client.get(PAGE).status_code == 403
    assert client.post(PAGE, data={"url": URL}).status_code == 403


def test_the_admin_menu_links_the_page(client, auth, db):
    admin(db, auth)
    page = client.get("/admin/people").get_data(as_text=True)
    assert f'href="{PAGE}"' in page


def test_registering_shows_the_secret_once_and_lists_the_endpoint(client, auth, db):
    person = admin(db, auth)
    response = client.post(
        PAGE,
        data={
            "url": URL,
            "format": "teams",
            "event_hours_logged": "y",
            "event_readiness_dropped": "y",
        },
    )
    assert response.status_code == 302
    (endpoint,) = db.scalars(select(WebhookEndpoint)).all()
    assert endpoint.events == "readiness.dropped,hours.logged"
    assert endpoint.format == "teams"
    page = client.get(PAGE).get_data(as_text=True)
    assert endpoint.secret in page and URL in page
    assert "Microsoft Teams Workflows" in page
    # Shown once: the next visit no longer holds it.
    assert endpoint.secret not in client.get(PAGE).get_data(as_text=True)
    assert person.id is not None


def test_a_bad_url_or_no_event_is_refused_with_400_naming_it(client, auth, db):
    admin(db, auth)
    response = client.post(PAGE, data={"url": "file:///etc/passwd", "event_hours_logged": "y"})
    assert response.status_code == 400
    assert "url must be an http:// or https:// address with a host name" in response.text
    response = client.post(PAGE, data={"url": URL, "format": "generic"})
    assert response.status_code == 400
    assert "choose at least one event" in response.text
    response = client.post(PAGE, data={"url": URL, "format": "email", "event_hours_logged": "y"})
    assert response.status_code == 400
    assert "choose one of the listed formats" in response.text
    assert count(db, WebhookEndpoint) == 0


def test_rotating_and_removing(client, auth, db):
    admin(db, auth)
    endpoint = add_endpoint(db, URL, ["hours.logged"], allow_hosts=WEBHOOK_HOSTS)
    old = endpoint.secret
    response = client.post(f"{PAGE}/{endpoint.id}/rotate-secret", follow_redirects=True)
    db.expire_all()
    assert endpoint.secret != old and endpoint.previous_secret == old
    assert endpoint.secret in response.text
    assert "the old one signs too for 24 hours" in response.text
    response = client.post(f"{PAGE}/{endpoint.id}/remove", follow_redirects=True)
    assert f"Webhook #{endpoint.id} removed" in response.text
    assert count(db, WebhookEndpoint) == 0
    assert client.post(f"{PAGE}/{endpoint.id}/remove").status_code == 404


def test_a_failed_delivery_shows_its_error_and_is_retried(client, auth, db):
    admin(db, auth)
    delivery = failed_delivery(
        db, add_endpoint(db, URL, ["hours.logged"], allow_hosts=WEBHOOK_HOSTS)
    )
    page = client.get(PAGE).get_data(as_text=True)
    assert "answered 500: boom" in page and "msg_page_1" in page
    assert f"Retry #{delivery.id}" in page
    response = client.post(f"{PAGE}/deliveries/{delivery.id}/retry", follow_redirects=True)
    assert f"Delivery #{delivery.id} queued again" in response.text
    db.expire_all()
    assert delivery.status == "pending"
    again = client.post(f"{PAGE}/deliveries/{delivery.id}/retry")
    assert again.status_code == 400
    assert "only a failed delivery can be retried" in again.text


def test_the_page_in_spanish(client, auth, db):
    admin(db, auth)
    failed_delivery(db, add_endpoint(db, URL, ["hours.logged"], allow_hosts=WEBHOOK_HOSTS))
    page = client.get(PAGE, headers=SPANISH).get_data(as_text=True)
    assert "Registrar un destino" in page and "Últimas entregas" in page
    assert "fallido" in page
    response = client.post(
        PAGE, data={"url": "ftp://x", "event_hours_logged": "y"}, headers=SPANISH
    )
    assert "la URL debe ser una dirección http:// o https://" in response.text


def test_removing_an_endpoint_asks_first_saying_what_goes_with_it(client, auth, db):
    admin(db, auth)
    endpoint = add_endpoint(db, URL, ["hours.logged"], allow_hosts=WEBHOOK_HOSTS)
    failed_delivery(db, endpoint)
    url = f"{PAGE}/{endpoint.id}/remove"
    assert f'<a href="{url}" role="button"' in client.get(PAGE).text

    asked = confirmation(client, url)

    assert asked.question == f"Remove webhook #{endpoint.id}, {URL}?"
    assert "Nothing more is sent to it, and its deliveries go with it." in asked.text
    assert "The audit trail keeps a record of the endpoint" in asked.text
    assert asked.back == PAGE
    assert (count(db, WebhookEndpoint), count(db, WebhookDelivery)) == (1, 1)

    response = asked.confirm(follow_redirects=True)

    assert f"Webhook #{endpoint.id} removed" in response.text
    assert (count(db, WebhookEndpoint), count(db, WebhookDelivery)) == (0, 0)
    assert client.get(url).status_code == 404


def test_the_question_in_spanish(client, auth, db):
    admin(db, auth)
    endpoint = add_endpoint(db, URL, ["hours.logged"], allow_hosts=WEBHOOK_HOSTS)
    asked = confirmation(client, f"{PAGE}/{endpoint.id}/remove", headers=SPANISH)
    assert asked.question == f"¿Quitar el webhook n.º {endpoint.id}, {URL}?"
    assert "Ya no se le envía nada" in asked.text and asked.back_label == "Cancelar"
