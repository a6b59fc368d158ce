"""The request boundary of the pages and the API, installed on the app by `init_app`.

Where each part lives:

- `language`: the request's language, read fast (`current_locale`, the templates' gettext),
  and domain messages in it (`localized`, `localized_errors`)
- `filters`: the templates' filters of numbers, amounts, dates and names
- `navigation`: the menu each access role sees
- `security`: security headers, caching, body limits, NUL refusal, the API's cookie-less session
- `database`: writers declared, the commit at the end, a database outage answered 503
- `errors`: the error page in the page's language, or the API's JSON errors
- `converters`: `<int:...>` in a URL, a record id
- `downloads`: CSV files (`csv_download`)
- `roles`: `role_required`
- `current`: the request itself, looked up once (`current_request`)
- `confirm`: the page a destructive button asks on before it acts (`confirmation_page`),
  and the page it returns to (`back_to`)
- `links`: links back into the site: only a path of this site (`same_site_path`), this
  page's own (`here`)
"""

from __future__ import annotations

from flask import Flask, Response
from sqlalchemy.exc import DBAPIError
from werkzeug.exceptions import HTTPException

from tracker.extensions import login_manager
from tracker.web.converters import IdConverter, id_url
from tracker.web.current import current_request
from tracker.web.database import (
    commit,
    database_unavailable,
    declare_write_intent,
    end_write_intent,
    is_outage,
)
from tracker.web.drawings import add_drawings
from tracker.web.errors import error_description, error_name, http_error, sign_in_first
from tracker.web.filters import add_filters
from tracker.web.language import install_gettext
from tracker.web.navigation import add_navigation
from tracker.web.security import (
    CookieSessionOutsideApi,
    DrainRequestBody,
    harden,
    refuse_nul_characters,
    refuse_oversized_body,
)


def init_app(app: Flask) -> None:
    """Install the request-boundary hooks and template filters on the app."""
    add_filters(app)
    install_gettext(app)
    app.add_template_global(error_name)
    app.add_template_global(error_description)
    app.add_template_global(id_url)
    # Before any blueprint adds its rules, which read the converters.
    app.url_map.converters["int"] = IdConverter
    app.session_interface = CookieSessionOutsideApi()
    app.wsgi_app = DrainRequestBody(app.wsgi_app)  # type: ignore[method-assign]
    add_navigation(app)
    add_drawings(app)
    login_manager.unauthorized_handler(
        lambda: sign_in_first(str(login_manager.login_view), str(login_manager.login_message))
    )

    @app.before_request
    def prepare_request() -> None:
        # One hook, not two: every hook costs each request a little.
        current = current_request()
        refuse_oversized_body(current)
        refuse_nul_characters(current)
        declare_write_intent(current)

    @app.teardown_request
    def forget_write_intent(exc: BaseException | None = None) -> None:
        end_write_intent()

    @app.after_request
    def commit_and_harden(response: Response) -> Response:
        # The answer a failed commit turns into (503) is hardened too.
        response = commit(app, response)
        harden(app, response)
        return response

    @app.errorhandler(DBAPIError)
    def database_error(exc: DBAPIError):
        # Unavailable, locked or disconnected: 503 with a clear message, the
        # request's work rolled back. Any other database error is a bug (500).
        if not is_outage(exc):
            raise exc
        return database_unavailable(app, exc)

    @app.errorhandler(HTTPException)
    def handle_http_error(exc: HTTPException):
        return http_error(app, exc)
