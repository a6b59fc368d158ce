"""The organisation measured: generated at a size, and API tokens for some of its engineers."""

from __future__ import annotations

import datetime as dt
import random

from sqlalchemy.orm import sessionmaker

from bench.common import SECRET
from bench.databases import Database, settle


def build_organisation(db: Database, engineers: int, today: dt.date, seed: int = 1):
    """Migrate, load the catalog and generate an organisation; return the generator's report."""
    from tracker.catalog.services.seed_loading import load_seed
    from tracker.config import PROJECT_ROOT
    from tracker.db import make_engine, run_migrations, session_scope
    from tracker.demo.services.generator import generate_organisation

    db.create()
    run_migrations(db.url)
    engine = make_engine(db.url)
    try:
        with session_scope(sessionmaker(bind=engine)) as session:
            load_seed(session, PROJECT_ROOT / "seed" / "catalog.toml")
        with session_scope(sessionmaker(bind=engine)) as session:
            # The servers' secret key: the admin's app secret is encrypted with it.
            generated = generate_organisation(
                session, engineers, today, seed=seed, analyze=True, secret_key=SECRET
            )
        settle(db.url)
        return generated
    finally:
        engine.dispose()


def create_tokens(url: str, count: int, seed: int = 7) -> list[tuple[int, str, dt.date]]:
    """Create API tokens for `count` active engineers; return (id, secret, hired_on)."""
    from sqlalchemy import select

    from tracker.db import make_engine, session_scope
    from tracker.people.models import Engineer
    from tracker.people.services.accounts import create_token

    engine = make_engine(url)
    try:
        with session_scope(sessionmaker(bind=engine, expire_on_commit=False)) as session:
            people = session.scalars(
                select(Engineer)
                .where(Engineer.active.is_(True), Engineer.access_role == "engineer")
                .order_by(Engineer.id)
            ).all()
            chosen = random.Random(seed).sample(list(people), min(count, len(people)))
            return [(e.id, create_token(session, e, "bench")[1], e.hired_on) for e in chosen]
    finally:
        engine.dispose()
