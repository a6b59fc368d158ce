"""The `tracker` commands: init, serve, rekey, and each feature's commands, loaded when named.

Each feature keeps its commands in its own `cli.py`, which never imports this
module: the table below names them, and a command's module is imported only
when that command runs (as Indico's lazy groups do), so `tracker --help` and
every command start without loading every feature.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable

import click
from flask import Flask, current_app
from flask.cli import AppGroup, ScriptInfo, with_appcontext

# The command's name, the module defining it, and the attribute holding it.
FEATURE_COMMANDS: dict[str, tuple[str, str]] = {
    "catalog": ("tracker.catalog.cli", "catalog_command"),
    "demo": ("tracker.demo.cli", "demo_command"),
    "user": ("tracker.people.cli", "user_cli"),
    "token": ("tracker.people.cli", "token_cli"),
    "team": ("tracker.people.cli", "team_cli"),
    "readiness": ("tracker.readiness.cli", "readiness_command"),
    "remind": ("tracker.reminders.cli", "remind_command"),
    "scheduler": ("tracker.reminders.cli", "scheduler_command"),
    "bonus": ("tracker.careers.cli", "bonus_cli"),
    "badge": ("tracker.badges.cli", "badge_cli"),
    "webhook": ("tracker.webhooks.cli", "webhook_cli"),
    "scim-token": ("tracker.scim.cli", "scim_token_cli"),
    "issuer": ("tracker.issuer.cli", "issuer_cli"),
}

# Commands a higher package adds to a lower one's group: `tracker user erase` is the
# privacy package's, which the people package may not import.
FEATURE_SUBCOMMANDS: dict[str, tuple[tuple[str, str], ...]] = {
    "user": (("tracker.privacy.cli", "user_erase"),),
}


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
    from tracker.db import run_migrations, session_scope
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
        ctx = click.get_current_context()
        demo_command = _load("demo")
        ctx.invoke(demo_command)


@click.command("serve")
@with_appcontext
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Worker processes (each with its own app); more for more cores.",
)
@click.option(
    "--threads",
    default=8,
    show_default=True,
    type=click.IntRange(1, 256),
    help="Threads per worker, each running one request that has arrived whole.",
)
@click.option(
    "--scheduler/--no-scheduler",
    default=False,
    show_default=True,
    help="Also run the reminder scheduler, in the server's master process (one per deployment).",
)
def serve_command(host: str, port: int, workers: int, threads: int, scheduler: bool) -> None:
    """Serve the application with gunicorn, a production WSGI server."""
    import threading

    from gunicorn.app.base import BaseApplication

    from tracker.server import BufferingWorker

    stop = threading.Event()

    def when_ready(server) -> None:
        # The master, not a worker, runs the scheduler: workers come and go,
        # and the deployment-wide lock keeps other hosts as standbys.
        from tracker.reminders import scheduler as scheduling

        thread = threading.Thread(
            target=scheduling.run_when_elected, args=(new_app(), stop), daemon=True
        )
        thread.start()

    def on_exit(server) -> None:
        stop.set()

    class Server(BaseApplication):
        def load_config(self) -> None:
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("workers", workers)
            # Idle and slow clients wait in the worker's event loop, not in a
            # thread; a thread runs only a request that has arrived whole.
            self.cfg.set("worker_class", Worker)
            self.cfg.set("threads", threads)
            self.cfg.set("accesslog", "-")
            # A worker's event loop reports every second; threads may run longer.
            self.cfg.set("timeout", 60)
            if scheduler:
                self.cfg.set("when_ready", when_ready)
                self.cfg.set("on_exit", on_exit)

        def load(self) -> Flask:
            # A fresh app per worker: this command runs inside the CLI's app
            # context, and a request reusing it would share `g` (and its
            # database session and CSRF token) with every other request.
            return new_app()

    # The factory that made this command's app makes the workers' apps too.
    factory = click.get_current_context().ensure_object(ScriptInfo).create_app
    if factory is None:
        raise click.ClickException("serve runs from the `tracker` command, which knows the factory")
    new_app: Callable[[], Flask] = factory
    # Buffer what the app accepts; a larger body goes to the app at once, which refuses it.
    body_limit = current_app.config.get("MAX_CONTENT_LENGTH") or BufferingWorker.body_limit
    Worker = type(
        "Worker",
        (BufferingWorker,),
        {"body_limit": body_limit, "default_locale": current_app.config["DEFAULT_LOCALE"]},
    )
    url = own_url(host, port)
    if not os.environ.get("TRACKER_BASE_URL"):
        # Links in pages, mail and feeds must open where this server answers; the
        # workers' and the scheduler's apps read it from the environment they inherit.
        os.environ["TRACKER_BASE_URL"] = url
    click.echo(f"serving on {url} with {workers} worker(s) of {threads} threads")
    Server().run()


@click.command("rekey")
@with_appcontext
def rekey_command() -> None:
    """Encrypt every authenticator secret and issuer key under the current secret key.

    Run after moving the replaced key into TRACKER_SECRET_KEY_FALLBACKS; run again,
    it changes nothing. Fails naming what neither the key nor a fallback opens.
    """
    from tracker.extensions import db_session, secret_keys
    from tracker.issuer.services.keys import rekey_keys
    from tracker.people.services.totp import rekey_secrets

    session, keys = db_session(), secret_keys()
    secrets_done = rekey_secrets(session, keys)
    keys_done = rekey_keys(session, keys)
    session.commit()
    click.echo(
        f"{secrets_done.rewritten} two-step sign-in secret(s) and {keys_done.rewritten}"
        " issuer key(s) encrypted under the current key"
    )
    unreadable = [
        *(f"the authenticator secret of {email}" for email in secrets_done.unreadable),
        *(f"the issuer's signing key {name}" for name in keys_done.unreadable),
    ]
    if unreadable:
        raise click.ClickException(
            "neither TRACKER_SECRET_KEY nor TRACKER_SECRET_KEY_FALLBACKS opens"
            f" {'; '.join(unreadable)}. `tracker user reset-totp EMAIL` clears a secret"
            " (its owner sets up the app again); `tracker issuer init-key --rotate` makes"
            " a new signing key"
        )


def own_url(host: str, port: int) -> str:
    """Return the URL a server bound to `host` and `port` answers on (IPv6 in brackets)."""
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    return f"http://{shown}:{port}"


def _load(name: str) -> click.Command:
    """Import the module of the feature command `name` and return the command."""
    module, attribute = FEATURE_COMMANDS[name]
    command = getattr(importlib.import_module(module), attribute)
    assert isinstance(command, click.Command)
    for sub_module, sub_attribute in FEATURE_SUBCOMMANDS.get(name, ()):
        assert isinstance(command, click.Group)
        command.add_command(getattr(importlib.import_module(sub_module), sub_attribute))
    return command


class LazyGroup(AppGroup):
    """The app's command group: init, serve, rekey, and the feature commands, imported on use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *FEATURE_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in FEATURE_COMMANDS:
            return _load(cmd_name)
        return super().get_command(ctx, cmd_name)


def install(app: Flask) -> None:
    """Give the app its command group."""
    group = LazyGroup(app.name)
    group.add_command(init_command)
    group.add_command(serve_command)
    group.add_command(rekey_command)
    app.cli = group
