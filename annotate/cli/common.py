"""What every command shares: the database from the context, and library errors as one clear line."""
from __future__ import annotations

import contextlib
import functools
import os
import sys
from pathlib import Path

import click

from fairval.errors import FairvalError
from fairval.store import open_db
from fairval.store.db import is_url


def friendly(fn):
    """Turn fairval's refusals (FairvalError, the one root) and files that cannot be read or written into
    one clear line and exit code 1. Anything else is a bug and keeps its traceback."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except BrokenPipeError:
            _reader_gone()
        except OSError as e:
            _forget_new_database()
            where = f"{e.filename}: " if e.filename else ""
            raise click.ClickException(f"{where}{e.strerror or e}") from None
        except FairvalError as e:
            _forget_new_database()
            raise click.ClickException(str(e)) from None
    return wrapper


def _reader_gone() -> None:
    """stdout's reader closed it (`fairval study show X | head -2`): not an error, so exit quietly with 0.
    As Python's docs say (signal, "Note on SIGPIPE"): stdout goes to devnull first, so that the interpreter's
    last flush of what is still buffered does not fail again."""
    with contextlib.suppress(OSError, ValueError):      # a stdout with no file behind it (a test's runner)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    raise SystemExit(0)


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
