"""What every command shares: the database from the context, and library errors as one clear line."""
from __future__ import annotations

import functools

import click

from annotate.records import ImportProblem
from annotate.studies import StudyError
from store import StoreError, open_db


def friendly(fn):
    """Turn the library's refusals into one clear line and exit code 1."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (ImportProblem, StudyError, StoreError, ValueError, KeyError) as e:
            raise click.ClickException(e.args[0] if isinstance(e, KeyError) else str(e)) from None
    return wrapper


def _db(ctx: click.Context):
    return open_db(ctx.obj["db_path"])
