"""Opening the SQLite file: WAL, a busy timeout, migrations applied on open."""
from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from sqlite_utils import Database

from store.schema import MIGRATIONS

BUSY_TIMEOUT_SECONDS = 30.0


class StoreError(Exception):
    "A write the store refuses: the message says what was required and what was found."


def default_db_path() -> str:
    """Read at call time so tests and the app can point at their own file."""
    return os.environ.get("FAIRVAL_DB", "fairval.db")


def open_db(path: str | Path | None = None) -> Database:
    """Open (creating if needed) a fairval database and bring its schema up to date."""
    path = str(path or default_db_path())
    # isolation_level=None: we open every transaction ourselves (atomic/immediate), never implicitly.
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None,
                           check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
    conn.execute("PRAGMA foreign_keys = ON")
    db = Database(conn)
    if path != ":memory:":
        db.enable_wal()
    migrate(db)
    return db


def schema_version(db: Database) -> int:
    return db.execute("PRAGMA user_version").fetchone()[0]


def migrate(db: Database) -> int:
    """Apply the migrations this file has not seen yet, in one transaction.

    An up-to-date file is only read, so opening connections never queues behind raters' writes.
    """
    version = schema_version(db)
    if version > len(MIGRATIONS):
        raise StoreError(f"this database has schema version {version}, newer than this fairval knows "
                         f"({len(MIGRATIONS)}); upgrade fairval to open it")
    if version == len(MIGRATIONS):
        return version
    with immediate(db):
        current = schema_version(db)
        for version, step in enumerate(MIGRATIONS, start=1):
            if version > current:
                step(db)
                db.execute(f"PRAGMA user_version = {version}")
    return schema_version(db)


@contextlib.contextmanager
def immediate(db: Database) -> Iterator[Database]:
    """A write transaction that takes the write lock up front.

    Reads inside it see the state that the writes will build on, so two workers cannot both
    choose the same slot (a deferred transaction would only fail late, at its first write).
    Nested use falls back to sqlite-utils' savepoints.
    """
    if db.conn.in_transaction:
        with db.atomic():
            yield db
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.conn.rollback()
        raise
    else:
        db.execute("COMMIT")
