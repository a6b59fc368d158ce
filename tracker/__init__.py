"""The tracker: certified GPU-infrastructure teams."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask

from tracker.config import INSTANCE_DIR, PROJECT_ROOT, Config
from tracker.i18n import TRANSLATIONS_DIR

__all__ = ["TRANSLATIONS_DIR", "Tracker", "create_app"]

# Callables ensure_sync remembers at most: views, hooks and handlers are a few hundred.
SYNC_CALLABLES = 4096


class Tracker(Flask):
    """Flask, remembering whether each view and hook is a coroutine function.

    Flask asks it (ensure_sync) at every call of every view, hook and
    handler; the answer never changes for a function.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._synced: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        try:
            return self._synced[func]
        except KeyError:
            synced = super().ensure_sync(func)
            if len(self._synced) < SYNC_CALLABLES:
                self._synced[func] = synced
            return synced
        except TypeError:  # not hashable
            return super().ensure_sync(func)


def create_app(config: Config | dict[str, Any] | None = None) -> Flask:
    """Create the application: configuration, database, extensions, blueprints, commands."""
    import tracker.models  # noqa: F401  (every table, and the listeners of the models)
    from tracker import cli, web
    from tracker.admin.views import catalog, imports, outbox, people, teams  # noqa: F401  (routes)
    from tracker.admin.views.blueprint import bp as admin_bp
    from tracker.api.blueprint import bp as api_bp
    from tracker.api.docs import bp as api_docs_bp
    from tracker.badges.views import bp as badges_bp
    from tracker.careers.views import bonuses, engineers, managers  # noqa: F401  (their routes)
    from tracker.careers.views.blueprint import bp as careers_bp
    from tracker.catalog.views import bp as catalog_bp
    from tracker.db import (
        DEFAULT_POOL_SIZE,
        autocommit_engine,
        make_engine,
        make_session_factory,
    )
    from tracker.extensions import babel, close_db_session, csrf, init_limiter, login_manager
    from tracker.health.views import bp as health_bp
    from tracker.identity.views import install as install_single_sign_on
    from tracker.issuer.views import bp as issuer_bp
    from tracker.people.rules import LOCALES
    from tracker.people.views import bp as people_bp
    from tracker.people.views import load_user, select_locale
    from tracker.privacy.views import bp as privacy_bp
    from tracker.progress.views import credentials, dashboard, exams, hours  # noqa: F401  (routes)
    from tracker.progress.views.blueprint import bp as progress_bp
    from tracker.readiness.views import bp as readiness_bp
    from tracker.reminders.views.calendars import bp as calendars_bp
    from tracker.reminders.views.digest import bp as mail_bp
    from tracker.scim.views import bp as scim_bp

    app = Tracker(
        __name__,
        instance_path=str(INSTANCE_DIR),
        template_folder=str(PROJECT_ROOT / "templates"),
    )
    if config is None:
        config = Config()
    elif isinstance(config, dict):
        config = Config(**config)
    app.config.from_mapping(config.as_dict())
    if app.config["DEFAULT_LOCALE"] not in LOCALES:
        raise ValueError(
            f"TRACKER_DEFAULT_LOCALE must be one of {', '.join(LOCALES)},"
            f" not {app.config['DEFAULT_LOCALE']!r}"
        )
    app.config["BABEL_DEFAULT_LOCALE"] = app.config["DEFAULT_LOCALE"]

    pool_size = int(app.config.get("DATABASE_POOL_SIZE", DEFAULT_POOL_SIZE))
    engine = make_engine(
        app.config["DATABASE_URL"],
        sqlite_busy_timeout_ms=int(app.config.get("SQLITE_BUSY_TIMEOUT_MS", 15000)),
        pool_size=pool_size,
    )
    app.extensions["tracker.engine"] = engine
    app.extensions["tracker.autocommit_engine"] = autocommit_engine(engine, pool_size)
    app.extensions["tracker.sessions"] = make_session_factory(engine)
    app.teardown_appcontext(close_db_session)

    babel.init_app(
        app,
        locale_selector=select_locale,
        default_translation_directories=str(TRANSLATIONS_DIR),
    )
    csrf.init_app(app)
    login_manager.init_app(app)
    login_manager.user_loader(load_user)
    init_limiter(app)
    web.init_app(app)
    app.register_blueprint(catalog_bp)
    app.register_blueprint(people_bp)
    install_single_sign_on(app)
    app.register_blueprint(admin_bp)
    app.register_blueprint(progress_bp)
    app.register_blueprint(badges_bp)
    app.register_blueprint(readiness_bp)
    app.register_blueprint(calendars_bp)
    app.register_blueprint(mail_bp)
    app.register_blueprint(careers_bp)
    app.register_blueprint(api_bp)
    app.register_blueprint(api_docs_bp)
    app.register_blueprint(scim_bp)
    app.register_blueprint(issuer_bp)
    app.register_blueprint(privacy_bp)
    app.register_blueprint(health_bp)
    cli.install(app)
    return app
