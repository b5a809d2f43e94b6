"""The audit trail: who did what, when, to which study. Appended to, never changed: nothing in fairval
updates or deletes a row, and the database refuses it (a trigger, store/schema.py).

Who is acting is set once where the action comes in (the command line sets the OS user; a researcher
page sets the signed-in researcher) and read here, so the functions that change studies, import, export
and pay record themselves without carrying a name through every call."""
from __future__ import annotations

import contextlib
import contextvars
import getpass
import json
import time
import unicodedata
from collections.abc import Iterator
from typing import Any

from fairval.store.engine import Connection, Row

_ACTOR: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar("fairval_actor", default=None)


def acting_as(name: str, via: str) -> None:
    """Who the actions of this thread (a command, a page's run) are done by: via is 'cli' or 'page'."""
    _ACTOR.set((name, via))


@contextlib.contextmanager
def acting(name: str, via: str) -> Iterator[None]:
    """Who one step inside another's action is done by (the stopping rule inside a rater's Submit, a
    command's demo), and afterwards whoever acted before again: acting_as alone would leave the step's
    name on everything the thread does next."""
    token = _ACTOR.set((name, via))
    try:
        yield
    finally:
        _ACTOR.reset(token)


def actor() -> tuple[str, str]:
    """(name, via): as set, else the OS user running this code (a notebook, a script)."""
    found = _ACTOR.get()
    if found is not None:
        return found
    try:
        return getpass.getuser(), "python"
    except Exception:
        return "unknown", "python"


def record(db: Connection, action: str, study_id: str | None = None, *, at: float | None = None,
           **details: Any) -> None:
    """Append one line. Inside the caller's transaction when there is one (it stands or falls with the
    change it describes)."""
    name, via = actor()
    db.insert("audit", [{"at": time.time() if at is None else at, "actor": name, "via": via, "action": action,
                         "study_id": study_id, "details": json.dumps(details, default=str, sort_keys=True)}])


def entries(db: Connection, study_id: str | None = None, since: float | None = None) -> list[Row]:
    """The trail, oldest first: every study's, or one study's."""
    where: list[str] = []
    params: list[object] = []
    if study_id is not None:
        where.append("study_id = ?")
        params.append(study_id)
    if since is not None:
        where.append("at >= ?")
        params.append(since)
    rows = db.query("SELECT at, actor, via, action, study_id, details FROM audit"
                    + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id", params)
    return [{**r, "details": json.loads(r["details"])} for r in rows]


def printable(value: object) -> str:
    """A value of the trail as one line of plain text: control and format characters (a line break, a
    terminal escape, a right-to-left mark) shown as escapes, and a backslash doubled so an escape typed
    on a sign-in form cannot pass for one. What a sign-in form or a file supplied never forges a line."""
    out = []
    for ch in str(value):
        if ch == "\\":
            out.append("\\\\")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)
