"""Judgments per rater and what was paid for them, bonus run by bonus run."""
from __future__ import annotations

from collections.abc import Iterable

from store.db import Database


def judgments_by_rater(db: Database, study_id: str) -> list[dict]:
    """Per rater who answered anything: source, platform ids and judgments (items answered)."""
    return db.query(
        """SELECT r.rater_id, r.source, r.platform_study_id, r.platform_session_id,
                  COUNT(DISTINCT t.item_id) AS judgments
             FROM raters r JOIN ratings t ON t.study_id = r.study_id AND t.rater_id = r.rater_id
            WHERE r.study_id = ? GROUP BY r.rater_id, r.source, r.platform_study_id, r.platform_session_id
            ORDER BY r.rater_id""", [study_id])


def paid_by_rater(db: Database, study_id: str) -> dict[str, tuple[int, float]]:
    """rater -> (judgments paid for, amount paid) over every bonus run so far."""
    rows = db.execute("SELECT rater_id, SUM(judgments), SUM(amount) FROM payments WHERE study_id = ? "
                      "GROUP BY rater_id", [study_id]).fetchall()
    return {r: (int(j), float(a)) for r, j, a in rows}


def forget_batch(db: Database, study_id: str, batch: str) -> None:
    """A batch the platform refused: as if never paid, so the next run pays it."""
    db.execute("DELETE FROM payments WHERE study_id = ? AND batch = ?", [study_id, batch])


def record_payments(db: Database, study_id: str, batch: str, rows: Iterable[tuple[str, int, float]],
                    at: float) -> None:
    """Inside the caller's write transaction: (rater, judgments, amount) paid in this batch."""
    db.insert("payments", [{"study_id": study_id, "rater_id": r, "batch": batch, "judgments": j, "amount": a,
                            "paid_at": at} for r, j, a in rows])
