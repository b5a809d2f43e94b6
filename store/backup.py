"""A consistent copy of a live SQLite database, while raters keep answering: SQLite's online backup API
copies the database as one snapshot (a file copy of a WAL database can miss the answers still in the WAL,
or catch a page half-written). The copy is written beside the destination and renamed into place whole;
it is checked (PRAGMA integrity_check) before it is. PostgreSQL has its own tool for this: pg_dump."""
from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

from fairval.errors import StoreError
from fairval.store import audit
from fairval.store.engine import Connection, Row

PAGES_PER_STEP = 1024           # pages copied per step; writers get the lock between steps


def backup(db: Connection, destination: str | Path) -> Row:
    """Copy `db` to `destination` (a new file, or one to replace). Returns pages, bytes and the ratings held."""
    if db.dialect != "sqlite":
        raise StoreError("a PostgreSQL database is backed up with PostgreSQL's own tool, while it runs: "
                         "pg_dump --format=custom --file=fairval.dump 'postgresql://…' (restore with pg_restore "
                         "into an empty database)")
    destination = Path(destination)
    if destination.resolve() == Path(db.path).resolve():
        raise StoreError(f"{destination} is the database itself; give the backup another name")
    if not destination.parent.is_dir():
        raise StoreError(f"cannot write {destination}: the folder {destination.parent} does not exist")
    handle, name = tempfile.mkstemp(dir=destination.parent, prefix=f".{destination.name}.", suffix=".part")
    os.close(handle)
    temporary = Path(name)
    try:
        copy = sqlite3.connect(temporary)
        try:
            db.conn.backup(copy, pages=PAGES_PER_STEP)
            check = copy.execute("PRAGMA integrity_check").fetchone()[0]
            if check != "ok":
                raise StoreError(f"the copy failed SQLite's integrity check ({check}); the database was not changed")
            ratings = copy.execute("SELECT COUNT(*) FROM ratings").fetchone()[0]
            pages = copy.execute("PRAGMA page_count").fetchone()[0]
        finally:
            copy.close()
        with open(temporary, "rb") as f:
            os.fsync(f.fileno())
        os.replace(temporary, destination)
    except sqlite3.Error as e:
        temporary.unlink(missing_ok=True)
        raise StoreError(f"cannot back up to {destination}: {e}") from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    # a copy of every answer and secret: who took it, and where, is in the trail (of the live database)
    audit.record(db, "backup", file=str(destination.resolve()), ratings=ratings)
    return {"pages": pages, "bytes": destination.stat().st_size, "ratings": ratings}
