"""Judgments per rater and what was paid for them, bonus run by bonus run."""
from __future__ import annotations

from collections.abc import Iterable

from fairval.store.engine import Connection, Row


def judgments_by_rater(db: Connection, study_id: str) -> list[Row]:
    """Per rater who answered anything: source, platform ids and judgments (items answered)."""
    return db.query(
        """SELECT r.rater_id, r.source, r.platform_study_id, r.platform_session_id,
                  COUNT(DISTINCT t.item_id) AS judgments
             FROM raters r JOIN ratings t ON t.study_id = r.study_id AND t.rater_id = r.rater_id
            WHERE r.study_id = ? GROUP BY r.rater_id, r.source, r.platform_study_id, r.platform_session_id
            ORDER BY r.rater_id""", [study_id])


def paid_by_rater(db: Connection, study_id: str) -> dict[str, tuple[int, float]]:
    """rater -> (judgments paid for, amount paid) over every bonus run so far."""
    rows = db.execute("SELECT rater_id, SUM(judgments), SUM(amount) FROM payments WHERE study_id = ? "
                      "GROUP BY rater_id", [study_id]).fetchall()
    return {r: (int(j), float(a)) for r, j, a in rows}


def forget_batch(db: Connection, study_id: str, batch: str) -> None:
    """A batch the platform refused: as if never paid, so the next run pays it."""
    db.execute("DELETE FROM payments WHERE study_id = ? AND batch = ?", [study_id, batch])
    db.execute("DELETE FROM bonus_batches WHERE study_id = ? AND batch = ?", [study_id, batch])


def open_batch(db: Connection, study_id: str, batch: str, platform_study_id: str, at: float) -> None:
    """Inside the caller's write transaction: an API batch reserved (its payments recorded beside it)."""
    db.insert("bonus_batches", [{"study_id": study_id, "batch": batch, "platform_study_id": platform_study_id,
                                 "bulk_id": None, "state": "reserved", "detail": None, "created_at": at,
                                 "updated_at": at}])


def mark_batch(db: Connection, study_id: str, batch: str, state: str, at: float, *, bulk_id: str | None = None,
               detail: str | None = None) -> None:
    db.execute("UPDATE bonus_batches SET state = ?, bulk_id = COALESCE(?, bulk_id), detail = COALESCE(?, detail), "
               "updated_at = ? WHERE study_id = ? AND batch = ?", [state, bulk_id, detail, at, study_id, batch])


def unsettled_batches(db: Connection, study_id: str) -> list[Row]:
    """API batches not known to be paid, oldest first, each with its participants and total."""
    batches = db.query("SELECT batch, platform_study_id, bulk_id, state, detail, created_at, updated_at "
                       "FROM bonus_batches WHERE study_id = ? AND state <> 'paid' ORDER BY created_at, batch",
                       [study_id])
    for b in batches:
        rows = db.query("SELECT rater_id, amount FROM payments WHERE study_id = ? AND batch = ? ORDER BY rater_id",
                        [study_id, b["batch"]])
        b["participants"] = [(r["rater_id"], float(r["amount"])) for r in rows]
        b["total"] = round(sum(a for _, a in b["participants"]), 2)
    return batches


def record_payments(db: Connection, study_id: str, batch: str, rows: Iterable[tuple[str, int, float]],
                    at: float) -> None:
    """Inside the caller's write transaction: (rater, judgments, amount) paid in this batch."""
    db.insert("payments", [{"study_id": study_id, "rater_id": r, "batch": batch, "judgments": j, "amount": a,
                            "paid_at": at} for r, j, a in rows])
