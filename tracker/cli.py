"""The `tracker` command: init, serve, catalog, and each feature's commands."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click
from flask import Flask, current_app
from flask.cli import FlaskGroup, with_appcontext

from tracker.config import PROJECT_ROOT


def today() -> dt.date:
    """Return today's date; commands read the clock, rules take it as a parameter."""
    return dt.date.today()


def run_migrations(url: str) -> str:
    """Upgrade the database at `url` to the head revision; return the head."""
    from alembic import command
    from alembic.config import Config as AlembicConfig
    from alembic.script import ScriptDirectory

    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    cfg = AlembicConfig(str(PROJECT_ROOT / "alembic.ini"))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    cfg.attributes["configure_logger"] = False
    command.upgrade(cfg, "head")
    return ScriptDirectory.from_config(cfg).get_current_head() or ""


@click.command("init")
@with_appcontext
@click.option("--demo", is_flag=True, help="Add a demo organisation and print its logins.")
@click.option(
    "--seed",
    "seed_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Catalog file to load (default: seed/catalog.toml).",
)
def init_command(demo: bool, seed_path: str | None) -> None:
    """Create or upgrade the database to the head migration and load the catalog."""
    from tracker.catalog.services.seed_loading import load_seed
    from tracker.catalog.services.seed_reading import SeedError
    from tracker.db import session_scope
    from tracker.extensions import session_factory

    url = current_app.config["DATABASE_URL"]
    head = run_migrations(url)
    click.echo(f"database at revision {head}")
    path = seed_path or current_app.config["SEED_PATH"]
    try:
        with session_scope(session_factory()) as session:
            report = load_seed(session, path)
    except SeedError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(report.summary())
    if demo:
        from tracker.demo.cli import demo_command

        click.get_current_context().invoke(demo_command)


@click.command("serve")
@with_appcontext
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64))
@click.option(
    "--scheduler/--no-scheduler",
    default=False,
    show_default=True,
    help="Also run the reminder scheduler, in the server's master process (one per deployment).",
)
def serve_command(host: str, port: int, workers: int, scheduler: bool) -> None:
    """Serve the application with gunicorn, a production WSGI server."""
    import threading

    from gunicorn.app.base import BaseApplication

    stop = threading.Event()

    def when_ready(server) -> None:
        # The master, not a worker, runs the scheduler: workers come and go,
        # and the deployment-wide lock keeps other hosts as standbys.
        from tracker import create_app
        from tracker import scheduler as scheduling

        thread = threading.Thread(
            target=scheduling.run_when_elected, args=(create_app(), stop), daemon=True
        )
        thread.start()

    def on_exit(server) -> None:
        stop.set()

    class Server(BaseApplication):
        def load_config(self) -> None:
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("workers", workers)
            self.cfg.set("accesslog", "-")
            self.cfg.set("timeout", 60)
            if scheduler:
                self.cfg.set("when_ready", when_ready)
                self.cfg.set("on_exit", on_exit)

        def load(self) -> Flask:
            # A fresh app per worker: this command runs inside the CLI's app
            # context, and a request reusing it would share `g` (and its
            # database session and CSRF token) with every other request.
            from tracker import create_app

            return create_app()

    click.echo(f"serving on http://{host}:{port} with {workers} worker(s)")
    Server().run()


def register_commands(app: Flask) -> None:
    """Add every command to the app's CLI group."""
    from tracker.careers.cli import bonus_cli
    from tracker.catalog.cli import catalog_command
    from tracker.demo.cli import demo_command
    from tracker.people.cli import team_cli, token_cli, user_cli
    from tracker.readiness.cli import readiness_command
    from tracker.reminders.cli import remind_command, scheduler_command

    for command in (
        init_command,
        serve_command,
        catalog_command,
        demo_command,
        user_cli,
        token_cli,
        team_cli,
        readiness_command,
        remind_command,
        scheduler_command,
        bonus_cli,
    ):
        app.cli.add_command(command)


def _create_app() -> Flask:
    from tracker import create_app

    return create_app()


main = FlaskGroup(
    name="tracker",
    create_app=_create_app,
    add_default_commands=False,
    add_version_option=False,
    load_dotenv=False,
    help="Track GPU-infrastructure engineers, their certifications and team readiness.",
)
