"""The app starts, shows the paths, and the test transaction isolates tests."""

import re
from xml.etree import ElementTree

from sqlalchemy import func, select

from tests import factories
from tracker.people.models import Engineer


def test_home_lists_the_paths(client):
    response = client.get("/")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "Foundations" in page and "Professional" in page
    assert "48 h over 3 courses" in page and "136 h over 4 courses" in page


def test_security_headers_on_every_page(client):
    response = client.get("/catalog")
    assert response.status_code == 200
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"


def test_every_page_names_an_icon_the_app_serves(client):
    # Without one, a browser asks for /favicon.ico on every first visit and logs a 404.
    for url in ("/", "/login", "/no-such-page"):
        page = client.get(url).get_data(as_text=True)
        found = re.search(r'<link rel="icon" type="image/svg\+xml" href="([^"]+)">', page)
        assert found, url
        with client.get(found.group(1)) as icon:
            assert icon.status_code == 200
            assert icon.mimetype == "image/svg+xml"
            assert ElementTree.fromstring(icon.get_data()).tag == "{http://www.w3.org/2000/svg}svg"


def test_unknown_page_is_a_404_page(client):
    response = client.get("/no-such-page")
    assert response.status_code == 404
    assert "Not Found" in response.get_data(as_text=True)


def test_writes_are_rolled_back_between_tests_part_1(db):
    factories.engineer(db, email="isolated@example.com")
    assert db.scalar(select(func.count()).select_from(Engineer)) == 1


def test_writes_are_rolled_back_between_tests_part_2(db):
    assert db.scalar(select(func.count()).select_from(Engineer)) == 0
