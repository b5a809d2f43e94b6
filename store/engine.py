"""The SQLite engine: one small connection wrapper and the write transaction every store function uses.

`Connection` is the only handle the rest of fairval holds. Store modules write plain SQL with `?` or
`:name` parameters in the subset SQLite and PostgreSQL share (ON CONFLICT, FILTER, RETURNING), so
the same functions run on either engine; store/postgres.py extends this class for PostgreSQL.
Nothing here imports the rest of store/: schema, engines and store functions read top-down from here.
"""
from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from fairval.errors import DatabaseUnreachable, NoSpace

BUSY_TIMEOUT_SECONDS = 30.0

Row = dict[str, Any]                                 # a row as a query gives it: column name -> value
Params = Sequence[Any] | Mapping[str, Any]           # `?` parameters in order, or `:name` ones by name


class Connection:
    """A connection and the few operations the store needs; transactions are opened explicitly."""

    dialect = "sqlite"

    def __init__(self, conn: sqlite3.Connection, path: str = ":memory:"):
        self.conn = conn
        self.path = path
        self._savepoints = 0

    # -- statements ---------------------------------------------------------------------------
    def execute(self, sql: str, params: Params = ()) -> Any:     # a cursor: sqlite3's, or postgres.Result
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Params]) -> int:
        """Run one statement per row; returns the rows changed in all."""
        return self.conn.executemany(sql, rows).rowcount

    def query(self, sql: str, params: Params = ()) -> list[Row]:
        cursor = self.execute(sql, params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]

    def scalar(self, sql: str, params: Params = ()) -> Any:
        row = self.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def insert(self, table: str, rows: Iterable[Mapping[str, Any]], *, ignore: bool = False,
               upsert_on: Sequence[str] | None = None) -> int:
        """Insert dict rows (all with the same keys). ignore: keep what is stored on a key clash;
        upsert_on: the key columns whose clash replaces the stored row's other columns."""
        rows = list(rows)
        if not rows:
            return 0
        columns = list(rows[0])
        sql = (f"INSERT INTO {table} ({', '.join(columns)}) "
               f"VALUES ({', '.join(':' + c for c in columns)})")
        if upsert_on:
            rest = [c for c in columns if c not in upsert_on]
            sql += (f" ON CONFLICT ({', '.join(upsert_on)}) DO UPDATE SET "
                    + ", ".join(f"{c} = excluded.{c}" for c in rest))
        elif ignore:
            sql += " ON CONFLICT DO NOTHING"
        return self.executemany(sql, rows)

    def ddl(self, sql: str) -> None:
        """A schema statement, written in SQLite's types (store/postgres.py translates them)."""
        self.execute(sql)

    def table_names(self) -> list[str]:
        return [r[0] for r in self.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]

    def schema_version(self) -> int:
        return int(self.scalar("PRAGMA user_version"))

    def set_schema_version(self, version: int) -> None:
        self.execute(f"PRAGMA user_version = {int(version)}")

    def close(self) -> None:
        self.conn.close()

    # -- transactions -------------------------------------------------------------------------
    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction

    def begin_write(self, study_id: str | None = None) -> None:
        """Take the write lock up front, so reads inside see what the writes will build on.
        SQLite has one lock for the file; PostgreSQL locks the study's row (store/postgres.py)."""
        self.execute("BEGIN IMMEDIATE")

    def lock_study(self, study_id: str) -> None:
        """Inside a write transaction: SQLite's is already exclusive."""

    def commit(self) -> None:
        self.execute("COMMIT")

    def rollback(self) -> None:
        self.conn.rollback()


def unavailable_errors() -> tuple[type[BaseException], ...]:
    """Errors that mean the database cannot store or give data just now (a full or read-only disk, a
    lock held too long, a PostgreSQL server restarting): worth trying again in a moment. NoSpace is
    immediate()'s sentence for a full disk, raised in place of the engine's own error; DatabaseUnreachable is a
    PostgreSQL server that refused a worker's first connection (a restart under way)."""
    import sys
    errors: list[type[BaseException]] = [sqlite3.OperationalError, NoSpace, DatabaseUnreachable]
    if "psycopg" in sys.modules:               # loaded only when a PostgreSQL URL is in use
        import psycopg
        import psycopg_pool
        errors += [psycopg.OperationalError, psycopg_pool.PoolTimeout]
    return tuple(errors)


def busy(error: BaseException) -> bool:
    """A wait the database gave up on while others held it (SQLite's lock past its busy timeout, a PostgreSQL
    lock or pool with nothing free in time): the server is saturated, not broken, and the rater waits on."""
    import sys
    if isinstance(error, sqlite3.OperationalError):
        return str(error).startswith(("database is locked", "database table is locked"))
    if "psycopg" in sys.modules:
        import psycopg
        import psycopg_pool
        return isinstance(error, (psycopg_pool.PoolTimeout, psycopg.errors.LockNotAvailable))
    return False


def disk_full(error: BaseException) -> bool:
    """SQLite's SQLITE_FULL or PostgreSQL's disk_full (53100): no space left where the database lives."""
    if isinstance(error, sqlite3.OperationalError):
        return "database or disk is full" in str(error)
    return getattr(error, "sqlstate", None) == "53100"


def _no_space(db: Connection) -> NoSpace:
    return NoSpace(f"no space left on the device holding the database {db.path}; nothing of this change was "
                      "stored: free some space and run it again")


@contextlib.contextmanager
def immediate(db: Connection, study_id: str | None = None) -> Iterator[Connection]:
    """A write transaction that takes the write lock up front: the file's (SQLite), or the study's
    row (PostgreSQL; without a study, a lock for all).

    Reads inside it see the state that the writes will build on, so two workers cannot both
    choose the same slot (a deferred transaction would only fail late, at its first write).
    Nested use becomes a savepoint, undone alone when its block fails. A full disk ends the whole
    transaction (SQLite rolls it back itself) with one StoreError sentence.
    """
    if db.in_transaction:
        db._savepoints += 1
        name = f"fairval_{db._savepoints}"
        db.execute(f"SAVEPOINT {name}")
        if study_id is not None:
            db.lock_study(study_id)
        try:
            yield db
        except BaseException as e:
            if db.in_transaction:               # a full disk may have ended the transaction already
                db.execute(f"ROLLBACK TO {name}")
                db.execute(f"RELEASE {name}")
            if disk_full(e):
                raise _no_space(db) from None
            raise
        else:
            db.execute(f"RELEASE {name}")
        finally:
            db._savepoints -= 1
        return
    db.begin_write(study_id)
    try:
        yield db
    except BaseException as e:
        db.rollback()
        if disk_full(e):
            raise _no_space(db) from None
        raise
    else:
        try:
            db.commit()
        except Exception as e:
            if not disk_full(e):
                raise
            db.rollback()
            raise _no_space(db) from None


@contextlib.contextmanager
def joined(db: Connection, study_id: str | None = None) -> Iterator[Connection]:
    """immediate(), or the caller's write transaction when one is open, without a savepoint of its own: for a
    block no caller goes on from when it fails (the failure ends the caller's transaction too). A savepoint is
    two round trips to PostgreSQL; a Submit opened two that nothing ever rolled back to alone (issue 58)."""
    if not db.in_transaction:
        with immediate(db, study_id):
            yield db
        return
    if study_id is not None:
        db.lock_study(study_id)
    yield db
