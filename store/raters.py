"""Raters of a study: how they arrived, consent, self-reported attributes, progress through the flow."""
from __future__ import annotations

import time
from typing import Any

from fairval.errors import StoreError
from fairval.store.engine import Connection, Row, immediate

ATTRIBUTES = ("gender", "race", "country")
PREFER_NOT_TO_SAY = "prefer not to say"     # an answer to a background question: missing, not a group
_FLAGS = ("consent", "language", "instructions_done", "practice_done", "practice_step", "finished_at",
          "platform_study_id", "platform_session_id")


def get_rater(db: Connection, study_id: str, rater_id: str) -> Row | None:
    rows = list(db.query("SELECT * FROM raters WHERE study_id = ? AND rater_id = ?",
                         [study_id, rater_id]))
    return rows[0] if rows else None


def ensure_rater(db: Connection, study_id: str, rater_id: str, *, source: str,
                 platform_study_id: str | None = None,
                 platform_session_id: str | None = None,
                 attributes: Row | None = None) -> Row:
    """The rater's row, created on first arrival; a returning rater's row is left as it was, and is only
    read (no write lock: every Submit brings the rater back through here)."""
    row = get_rater(db, study_id, rater_id)
    if row is not None:
        return row
    with immediate(db, study_id):
        row = get_rater(db, study_id, rater_id)
        if row is None:
            record = {"study_id": study_id, "rater_id": rater_id, "source": source,
                      "platform_study_id": platform_study_id,
                      "platform_session_id": platform_session_id, "started_at": time.time()}
            record.update({k: v for k, v in (attributes or {}).items() if k in ATTRIBUTES})
            db.insert("raters", [record])
            row = get_rater(db, study_id, rater_id)
    assert row is not None, "the rater's row was written in this transaction"
    return row


def update_rater(db: Connection, study_id: str, rater_id: str, **changes: Any) -> None:
    unknown = set(changes) - set(ATTRIBUTES) - set(_FLAGS)
    if unknown:
        raise StoreError(f"raters have no field(s) {sorted(unknown)}")
    with immediate(db, study_id):
        db.execute(f"UPDATE raters SET {', '.join(f'{k} = :{k}' for k in changes)} "
                   "WHERE study_id = :study_id AND rater_id = :rater_id",
                   {**changes, "study_id": study_id, "rater_id": rater_id})


def finish_instructions(db: Connection, study_id: str, rater_id: str) -> None:
    """The rater read the instructions. In a study without practice items they are past the practice too, in
    the same statement: the step no longer asks for the study's practice items at every run (issue 58)."""
    with immediate(db, study_id):
        db.execute("UPDATE raters SET instructions_done = 1, practice_done = CASE WHEN EXISTS (SELECT 1 FROM items "
                   "WHERE study_id = :study_id AND practice = 1) THEN practice_done ELSE 1 END "
                   "WHERE study_id = :study_id AND rater_id = :rater_id", {"study_id": study_id, "rater_id": rater_id})
