"""Studies: one row each, settings kept as JSON so new settings need no migration."""
from __future__ import annotations

import json
import secrets
import time

from fairval.errors import StoreError
from fairval.store import running
from fairval.store.engine import Connection, Row, immediate


def new_version() -> int:
    """A study's version, drawn anew with every change to its row (store/schema.py _v25_study_versions)."""
    return secrets.randbits(62)


def insert_study(db: Connection, study_id: str, task: str, settings: Row, *, status: str = "paused") -> None:
    with immediate(db):
        if get_study(db, study_id) is not None:
            raise StoreError(f"a study named {study_id!r} exists already; choose another name")
        db.insert("studies", [{"study_id": study_id, "task": task, "settings": json.dumps(settings),
                               "status": status, "created_at": time.time(), "version": new_version()}])


def get_study(db: Connection, study_id: str) -> Row | None:
    row = get_study_row(db, study_id)
    if row is not None:
        row["settings"] = json.loads(row["settings"])
    return row


def get_study_row(db: Connection, study_id: str) -> Row | None:
    """The row as stored, its settings the JSON text (what a parsed study is cached by)."""
    rows = list(db.query("SELECT * FROM studies WHERE study_id = ?", [study_id]))
    return rows[0] if rows else None


def get_version(db: Connection, study_id: str) -> int | None:
    """The token drawn anew with every change to the study's row (its settings, its status): one short row, so a
    study parsed at this version is still the study as stored (None: no such study)."""
    version = db.scalar("SELECT version FROM studies WHERE study_id = ?", [study_id])
    return None if version is None else int(version)


def get_status(db: Connection, study_id: str) -> str | None:
    status = db.scalar("SELECT status FROM studies WHERE study_id = ?", [study_id])
    return None if status is None else str(status)


def list_studies(db: Connection) -> list[Row]:
    rows = list(db.query("SELECT * FROM studies ORDER BY created_at"))
    for row in rows:
        row["settings"] = json.loads(row["settings"])
    return rows


def update_study(db: Connection, study_id: str, *, settings: Row | None = None,
                 status: str | None = None, by_researcher: bool = True) -> None:
    """by_researcher: the status was chosen (not set by fairval itself, as when items first arrive)."""
    changes: Row = {"version": new_version()}        # in the change's own statement: read with it or not at all
    if settings is not None:
        changes["settings"] = json.dumps(settings)
    if status is not None:
        changes["status"] = status
        if by_researcher:
            changes["status_set_at"] = time.time()
    if len(changes) > 1:
        with immediate(db, study_id):
            db.execute(f"UPDATE studies SET {', '.join(f'{k} = :{k}' for k in changes)} "
                       "WHERE study_id = :study_id", {**changes, "study_id": study_id})
            if settings is not None:            # the rule, the draw, the judge or raters per pair may differ
                running.forget(db, study_id)
