"""The bare endpoint the hour-logging figure is measured against.

The same framework (Flask), server (gunicorn, as many sync workers) and
database (TRACKER_DATABASE_URL, with the tracker's engine settings: WAL, busy
timeout, BEGIN IMMEDIATE for writers on SQLite) as `tracker serve`: it reads
the same JSON body and inserts one row into a scratch table, nothing else (no
token lookup, no rules, no audit trail).
"""

from __future__ import annotations

import datetime as dt
import os

from flask import Flask, jsonify, request
from sqlalchemy import Column, Date, DateTime, Integer, MetaData, String, Table, insert

from tracker.db import make_engine, writing

metadata = MetaData()
bench_hours = Table(
    "bench_hours",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("token", String(80), nullable=False),
    Column("course", String(40), nullable=False),
    Column("logged_on", Date, nullable=False),
    Column("hours", Integer, nullable=False),
    Column("note", String(500), nullable=False),
    Column("created_at", DateTime, nullable=False),
)

app = Flask(__name__)
engine = (
    make_engine(os.environ["TRACKER_DATABASE_URL"])
    if "TRACKER_DATABASE_URL" in os.environ
    else None
)


@app.get("/health")
def health():
    return "ok"


@app.post("/api/v1/hours")
def log_hours():
    data = request.get_json()
    token = request.headers.get("Authorization", "").partition(" ")[2]
    with writing(), engine.begin() as conn:
        row_id = conn.execute(
            insert(bench_hours).returning(bench_hours.c.id),
            {
                "token": token[:80],
                "course": data["course"],
                "logged_on": dt.date.fromisoformat(data["date"]),
                "hours": int(float(data["hours"]) * 100),
                "note": data.get("note", ""),
                "created_at": dt.datetime.now(dt.UTC).replace(tzinfo=None),
            },
        ).scalar_one()
    return jsonify({"id": row_id}), 201
