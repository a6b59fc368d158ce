"""The reminder figures: the daily pass beside its SQL baseline, composing, SMTP delivery."""

from __future__ import annotations

import datetime as dt
import smtplib
import statistics
import time

from sqlalchemy import insert, select, update
from sqlalchemy.orm import sessionmaker

from bench import pass_baseline
from bench.common import env_int, make_app, paired_medians
from bench.databases import settle
from bench.figures import Figures
from bench.servers import SmtpSink, run_measured, server_env

PASS_TARGET = 1.2
DELIVERY_TARGET = 0.90
DELIVERY_RUNS = 6  # the tracker's runs; the raw loop runs once more, around them


def bench_reminders(url: str, size: int, today, figures: Figures) -> None:
    from tracker.clock import utcnow
    from tracker.db import session_scope, writing
    from tracker.readiness.services.current import day_boundary
    from tracker.reminders import jobs, messages
    from tracker.reminders.models import Notification
    from tracker.reminders.services.composing import compose_pending
    from tracker.reminders.services.daily_pass import plan
    from tracker.reminders.services.windows import parse_windows

    app = make_app(url)
    engine = app.extensions["tracker.engine"]
    factory = app.extensions["tracker.sessions"]
    windows = parse_windows(app.config["REMINDER_WINDOWS"])
    mail = jobs.mail_settings(app)

    # A pass on an empty outbox (the first run ever), delivered: the state a
    # deployment is in every morning. The day measured is not a Monday: the
    # week's first pass also writes the digests, measured on their own below.
    day = today + dt.timedelta(days=1) if today.isoweekday() == 1 else today
    began = time.perf_counter()
    with session_scope(factory) as session:
        first = plan(session, day - dt.timedelta(days=1), windows, mail).count()
    first_time = time.perf_counter() - began
    with writing(), factory() as session, session.begin():
        session.execute(
            update(Notification)
            .where(Notification.status == "pending")
            .values(status="sent", sent_at=utcnow())
        )
    figures.add(
        size, f"first reminder pass ({first} notices queued)", "s", first_time, key="first pass"
    )

    def one_pass(on):
        # The scheduler's pass: counts only, the messages composed after it.
        with writing():
            session = factory()
            try:
                count = plan(session, on, windows, mail, keep=False, compose=False)
                session.flush()
                # The notices owed, not the copies in other languages that some carry.
                return count.count() - count.count("copy")
            finally:
                session.rollback()
                session.close()

    queued = []

    def daily():
        queued.append(one_pass(day))

    def raw():
        # The due certifications found and written to the outbox, as the pass
        # must (rolled back as the connection closes, as the pass is).
        with engine.connect() as conn:
            due = pass_baseline.queue_due(conn, day, utcnow())
        raw.due = len(due)

    with engine.connect() as conn:
        reach = len(pass_baseline.in_reach(conn, day))

    daily()
    raw()
    assert raw.due == queued[-1], f"the baseline finds {raw.due} due, the pass {queued[-1]}"
    pass_time, raw_time = paired_medians(daily, raw, 15)
    figures.add(
        size,
        f"daily reminder pass over {reach} certifications in reach ({raw.due} due)",
        "ms",
        pass_time * 1000,
        raw_time * 1000,
        f"<= {PASS_TARGET}x raw query",
        pass_time <= PASS_TARGET * raw_time,
        key="reminder pass",
    )

    def select_only() -> float:
        began = time.perf_counter()
        with engine.connect() as conn:
            pass_baseline.due_certifications(conn, day)
        return time.perf_counter() - began

    figures.add(
        size,
        "the due certifications' SELECT alone (the pass's baseline above also writes them)",
        "ms",
        statistics.median(select_only() for _ in range(15)) * 1000,
        key="due select",
    )
    monday = day + dt.timedelta(days=7 - day.weekday())
    boundaries, weeklies = [], []

    def weekly_pass() -> None:
        # As the scheduler runs a day: every team's readiness brought to the day
        # first (`jobs.refresh_readiness`, at midnight and before the pass, in units
        # of work of their own: savepoints here, rolled back with the rest), then
        # the pass. The pass's digests read that readiness; measured together, the
        # week's first pass paid the day's recomputation of every team.
        with writing():
            connection = engine.connect()
            outer = connection.begin()
            units = sessionmaker(
                bind=connection, join_transaction_mode="create_savepoint", expire_on_commit=False
            )
            session = units()
            try:
                began = time.perf_counter()
                day_boundary(units, monday)
                boundaries.append(time.perf_counter() - began)
                began = time.perf_counter()
                count = plan(session, monday, windows, mail, keep=False, compose=False)
                session.flush()
                weeklies.append(time.perf_counter() - began)
                queued.append(count.count() - count.count("copy"))
            finally:
                session.close()
                outer.rollback()
                connection.close()

    for _ in range(3):
        weekly_pass()
    figures.add(
        size,
        f"every team's readiness brought to a new day (the day boundary, {monday:%a %Y-%m-%d})",
        "ms",
        statistics.median(boundaries) * 1000,
        key="day boundary",
    )
    figures.add(
        size,
        f"the week's first pass, with the digests ({queued[-1]} notices, {monday:%a %Y-%m-%d})",
        "ms",
        statistics.median(weeklies) * 1000,
        key="weekly pass",
    )
    with session_scope(factory) as session:
        composing = plan(session, day, windows, mail, keep=False, compose=False).count()
    began = time.perf_counter()
    composed = compose_pending(factory, mail)
    compose_time = time.perf_counter() - began
    figures.add(
        size,
        f"composing the day's notices after the pass ({composed} of {composing}), per notice",
        "ms",
        compose_time * 1000 / max(composed, 1),
        key="compose",
    )

    sink = SmtpSink()
    try:
        env = server_env(
            url,
            TRACKER_SMTP_HOST="127.0.0.1",
            TRACKER_SMTP_PORT=str(sink.port),
            TRACKER_TIMEZONE="UTC",
        )
        peak = run_measured(["scheduler", "--once"], env)
        figures.add(
            size,
            f"scheduler peak memory (`tracker scheduler --once`, {sink.count()} sent)",
            "MB",
            peak,
            key="scheduler memory",
        )
        # The passes above wrote and rolled back thousands of notices: vacuumed
        # now, as autovacuum would have in a deployment (it may be off, as on
        # these machines).
        settle(url)
        bench_delivery(app, factory, sink, size, figures, messages, Notification)
    finally:
        sink.stop()
        engine.dispose()


def bench_delivery(app, factory, sink, size, figures, messages, Notification) -> None:
    from tracker.clock import utcnow
    from tracker.db import writing
    from tracker.reminders import jobs
    from tracker.reminders.services.delivery import SmtpSettings, deliver

    count = env_int("BENCH_NOTICES", 300)
    with factory() as session:
        sources = session.scalars(select(Notification).order_by(Notification.id).limit(count)).all()
    if not sources:
        figures.add(size, "SMTP delivery", "messages/s", None, note="no notices to send")
        return
    while len(sources) < count:
        sources = sources + sources[: count - len(sources)]
    now = utcnow()

    def queue(label: str) -> None:
        with writing(), factory() as session, session.begin():
            session.execute(
                insert(Notification),
                [
                    {
                        "dedupe_key": f"bench-{label}:{i}",
                        "kind": n.kind,
                        "certification_id": n.certification_id,
                        "window_days": n.window_days,
                        "engineer_id": n.engineer_id,
                        "to_addrs": n.to_addrs,
                        "cc_addrs": n.cc_addrs,
                        "subject": n.subject,
                        "body_text": n.body_text,
                        "body_html": n.body_html,
                        "ics": n.ics,
                        "message_id": f"<bench-{label}-{i}@tracker.bench>",
                        "status": "pending",
                        "attempts": 0,
                        "next_attempt_at": now - dt.timedelta(days=1),
                        "created_at": now,
                    }
                    for i, n in enumerate(sources)
                ],
            )

    settings = jobs.smtp_settings(app)
    settings = SmtpSettings(
        host="127.0.0.1", port=sink.port, mail_from=settings.mail_from, timeout=30
    )

    def raw_loop() -> float:
        began = time.perf_counter()
        smtp = smtplib.SMTP(settings.host, settings.port, timeout=30)
        smtp.ehlo()
        for i, n in enumerate(sources):
            to = [a.strip() for a in n.to_addrs.split(",") if a.strip()]
            cc = [a.strip() for a in n.cc_addrs.split(",") if a.strip()]
            message = messages.build_email(
                mail_from=settings.mail_from,
                to=to,
                cc=cc,
                subject=n.subject,
                text=n.body_text,
                html=n.body_html,
                message_id=f"<bench-raw-{i}@tracker.bench>",
                ics=n.ics,
                date=now,
            )
            smtp.send_message(message, from_addr=settings.mail_from, to_addrs=to + cc)
        smtp.quit()
        return len(sources) / (time.perf_counter() - began)

    before = sink.count()
    raw_rates = [raw_loop()]
    tracker_rates = []
    sent = 0
    # Alternate: raw, tracker, raw, ..., tracker, raw (the machine's noise hits
    # both), and take each side's median: one run of 300 messages lasts under a
    # second, and on this 2-core machine single runs of the same loop move by up
    # to 15 %.
    labels = [f"run{i}" for i in range(DELIVERY_RUNS)]
    for label in labels:
        queue(label)
        began = time.perf_counter()
        report = deliver(factory, settings, utcnow(), force=True)
        tracker_rates.append(report.sent / (time.perf_counter() - began))
        sent += report.sent
        raw_rates.append(raw_loop())
    received = sink.count() - before
    tracker_rate = statistics.median(tracker_rates)
    baseline = statistics.median(raw_rates)
    figures.add(
        size,
        f"SMTP delivery of {len(sources)} notices x{len(labels)} "
        f"(sent {sent}, sink got {received} with raw)",
        "messages/s",
        tracker_rate,
        baseline,
        f">= {DELIVERY_TARGET:.0%} of raw smtplib loop",
        tracker_rate >= DELIVERY_TARGET * baseline,
        key="delivery",
    )
