"""What every command shares: the database from the context, and library errors as one clear line."""
from __future__ import annotations

import functools
from pathlib import Path

import click

from annotate.errors import Refusal
from annotate.material.records import ImportProblem
from store import StoreError, open_db
from store.db import is_url


def _refusals() -> tuple[type[Exception], ...]:
    """The library's refusals. StudyError's module reads the store's tables into pandas, so it is looked
    up only once a command has failed (by then the command has loaded it anyway)."""
    from annotate.material.studies import StudyError
    return (ImportProblem, StudyError, StoreError, Refusal, ValueError, KeyError)


def friendly(fn):
    """Turn the library's refusals, files that cannot be written and databases that cannot be read
    into one clear line and exit code 1: never a traceback for something the user can fix."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except OSError as e:
            _forget_new_database()
            where = f"{e.filename}: " if e.filename else ""
            raise click.ClickException(f"{where}{e.strerror or e}") from None
        except Exception as e:
            if not isinstance(e, _refusals()):
                raise
            _forget_new_database()
            raise click.ClickException(e.args[0] if isinstance(e, KeyError) else str(e)) from None
    return wrapper


def _forget_new_database() -> None:
    """A command that failed leaves no trace: a database file it created for nothing is removed."""
    ctx = click.get_current_context(silent=True)
    made = ctx.find_root().obj.get("created") if ctx is not None and ctx.find_root().obj else None
    if not made:
        return
    db, file = made
    db.close()
    for extra in ("", "-wal", "-shm"):
        Path(f"{file}{extra}").unlink(missing_ok=True)


def _db(ctx: click.Context, *, create: bool = False):
    """The database named by --db / FAIRVAL_DB. Only commands that make something (init, study create,
    demo, serve) may create the file; the others refuse a missing one instead of leaving an empty file."""
    path = ctx.obj["db_path"]
    if not is_url(path) and path != ":memory:":
        file = Path(path)
        if not file.exists() and not create:
            raise click.ClickException(
                f"no fairval database at {file.resolve()}: give the right one with --db or FAIRVAL_DB "
                "(the demo's is fairval-demo.db), or create one with `fairval init`")
        if not file.parent.is_dir():
            raise click.ClickException(f"cannot create {path}: the folder {file.parent} does not exist")
        if not file.exists():
            db = open_db(path)
            ctx.find_root().obj["created"] = (db, file)
            return db
    return open_db(path)
