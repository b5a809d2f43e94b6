"""Opening a fairval database: a SQLite file (WAL, a busy timeout) or a PostgreSQL URL, refusing another
program's file, and bringing the schema up to date on open.

Reads top-down: store/engine.py (the handle), store/schema.py (migrations), store/postgres.py (the
second engine), then this module, which alone chooses between them.
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from fairval.errors import StoreError
from fairval.store.engine import BUSY_TIMEOUT_SECONDS, Connection, immediate
from fairval.store.schema import MIGRATIONS


def default_db_path() -> str:
    """Read at call time so tests and the app can point at their own file."""
    return os.environ.get("FAIRVAL_DB", "fairval.db")


def is_url(path: str | Path) -> bool:
    return str(path).startswith(("postgresql://", "postgres://"))


def connect(path: str | Path | None = None) -> Connection:
    """A handle on a SQLite file (WAL, busy timeout) or a PostgreSQL URL, without touching the schema."""
    path = str(path or default_db_path())
    if is_url(path):
        from fairval.store.postgres import PostgresConnection  # psycopg only when PostgreSQL is used
        return PostgresConnection(path)
    # isolation_level=None: we open every transaction ourselves (immediate), never implicitly.
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None,
                           check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
    conn.execute("PRAGMA foreign_keys = ON")
    if path != ":memory:":
        conn.execute("PRAGMA journal_mode = WAL")
    return Connection(conn, path)


def open_db(path: str | Path | None = None) -> Connection:
    """Open (creating if needed) a fairval database and bring its schema up to date."""
    path = str(path or default_db_path())
    try:
        _refuse_foreign(path)                    # read-only: even WAL mode is not set on someone else's file
        db = connect(path)
    except sqlite3.DatabaseError as e:          # not SQLite at all, or damaged: say which file
        raise StoreError(f"{path} cannot be used as a fairval database ({e})") from None
    try:
        migrate(db)
    except sqlite3.DatabaseError as e:
        db.close()
        raise StoreError(f"{db.path} cannot be used as a fairval database ({e})") from None
    except StoreError:
        db.close()
        raise
    return db


def _refuse_foreign(path: str) -> None:
    """A SQLite file that holds another program's tables is never given fairval's."""
    if is_url(path) or path == ":memory:" or not Path(path).is_file() or Path(path).stat().st_size == 0:
        return
    conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] != 0:
            return
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                             "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    finally:
        conn.close()
    if tables:
        raise StoreError(f"{path} is a SQLite database of something else (tables: {', '.join(tables[:5])}"
                         f"{', …' if len(tables) > 5 else ''}); fairval will not add its tables to it: "
                         "give a new file or a fairval database with --db")


def schema_version(db: Connection) -> int:
    return db.schema_version()


def migrate(db: Connection) -> int:
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
                db.set_schema_version(version)
    return schema_version(db)
