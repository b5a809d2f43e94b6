"""Who was served what and when: the ledger the assignment policy reads inside one write lock."""
from __future__ import annotations

from store.db import Database
from store.raters import ATTRIBUTES


def open_assignment(db: Database, study_id: str, rater_id: str, since: float) -> dict | None:
    """The rater's served-but-unanswered item that has not timed out, oldest first."""
    rows = list(db.query(
        """SELECT a.* FROM assignments a JOIN items i USING (study_id, item_id)
           WHERE a.study_id = ? AND a.rater_id = ? AND a.answered_at IS NULL AND a.served_at >= ?
             AND i.practice = 0
           ORDER BY a.served_at LIMIT 1""", [study_id, rater_id, since]))
    return rows[0] if rows else None


def get_assignment(db: Database, study_id: str, rater_id: str, item_id: str) -> dict | None:
    rows = list(db.query("SELECT * FROM assignments WHERE study_id = ? AND rater_id = ? AND item_id = ?",
                         [study_id, rater_id, item_id]))
    return rows[0] if rows else None


def _loads_sql(balance_by: str | None) -> str:
    """Per unseen, non-practice item: `taken` (distinct raters who answered or hold an unexpired slot)
    and `taken_group` (those of the rater's group :g)."""
    return f"""WITH holders AS (
                SELECT item_id, rater_id FROM assignments
                 WHERE study_id = :s AND (answered_at IS NOT NULL OR served_at >= :since)
                UNION
                SELECT item_id, rater_id FROM ratings WHERE study_id = :s),
            seen AS (
                SELECT item_id FROM assignments WHERE study_id = :s AND rater_id = :r
                UNION SELECT item_id FROM ratings WHERE study_id = :s AND rater_id = :r),
            loads AS (
                SELECT i.item_id, i.position, i.gold IS NOT NULL AS gold, COUNT(h.rater_id) AS taken,
                       COALESCE(SUM(h.rater_id IS NOT NULL AND {_group_column(balance_by)} = :g), 0) AS taken_group
                  FROM items i
                  LEFT JOIN holders h ON h.item_id = i.item_id
                  LEFT JOIN raters r ON r.study_id = :s AND r.rater_id = h.rater_id
                 WHERE i.study_id = :s AND i.practice = 0 AND i.item_id NOT IN (SELECT item_id FROM seen)
                 GROUP BY i.item_id)"""


OPEN_REGULAR = "NOT gold AND taken < :target AND taken_group < :cap"


def candidate_loads(db: Database, study_id: str, rater_id: str, *, since: float, balance_by: str | None,
                    rater_group: str | None, target: int, group_cap: int | None, limit: int = 50) -> list[dict]:
    """The items this rater could be given, each with its load, least taken first.

    A pre-filter for the pure policy (annotate.assignment.choose_item), applying the same rules in SQL
    so a study of thousands of items is not loaded into Python per serve: items the rater has not
    seen, under their target, and under the rater's group quota, the first `limit` of them in
    (taken, position) order; and as many unseen gold items.
    """
    return list(db.query(
        _loads_sql(balance_by) + f"""
            SELECT * FROM (SELECT * FROM loads WHERE {OPEN_REGULAR} ORDER BY taken, position LIMIT :limit)
            UNION ALL
            SELECT * FROM (SELECT * FROM loads WHERE gold ORDER BY taken, position LIMIT :limit)""",
        _params(study_id, rater_id, since, rater_group, target, group_cap) | {"limit": limit}))


def available_count(db: Database, study_id: str, rater_id: str, *, since: float, balance_by: str | None,
                    rater_group: str | None, target: int, group_cap: int | None) -> int:
    """How many regular items this rater could still be given now (for an honest progress bar)."""
    row = db.execute(_loads_sql(balance_by) + f" SELECT COUNT(*) FROM loads WHERE {OPEN_REGULAR}",
                     _params(study_id, rater_id, since, rater_group, target, group_cap)).fetchone()
    return int(row[0])


def _params(study_id, rater_id, since, rater_group, target, group_cap) -> dict:
    return {"s": study_id, "r": rater_id, "since": since, "g": rater_group, "target": target,
            "cap": group_cap if group_cap is not None else 2**31}


def _group_column(balance_by: str | None) -> str:
    if balance_by is None:
        return "NULL"
    if balance_by not in ATTRIBUTES:
        raise ValueError(f"balance attribute must be one of {ATTRIBUTES}, not {balance_by!r}")
    return f"r.{balance_by}"


def insert_assignment(db: Database, study_id: str, rater_id: str, item_id: str, *,
                      flipped: bool, served_at: float) -> None:
    db.insert("assignments", [{"study_id": study_id, "rater_id": rater_id, "item_id": item_id,
                               "flipped": int(flipped), "served_at": served_at}], ignore=True)


def mark_answered(db: Database, study_id: str, rater_id: str, item_id: str, at: float) -> None:
    db.execute("UPDATE assignments SET answered_at = ? WHERE study_id = ? AND rater_id = ? "
               "AND item_id = ? AND answered_at IS NULL", [at, study_id, rater_id, item_id])


def answered_count(db: Database, study_id: str, rater_id: str) -> tuple[int, int]:
    """(regular items answered, gold items answered) by this rater."""
    row = db.execute(
        """SELECT COALESCE(SUM(i.gold IS NULL), 0), COALESCE(SUM(i.gold IS NOT NULL), 0)
             FROM assignments a JOIN items i USING (study_id, item_id)
            WHERE a.study_id = ? AND a.rater_id = ? AND a.answered_at IS NOT NULL
              AND i.practice = 0""", [study_id, rater_id]).fetchone()
    return int(row[0]), int(row[1])


def active_raters(db: Database, study_id: str, since: float) -> int:
    """Raters served or answering since `since` (still inside the timeout window)."""
    return db.execute("""SELECT COUNT(DISTINCT rater_id) FROM assignments WHERE study_id = ?
                         AND (served_at >= ? OR answered_at >= ?)""", [study_id, since, since]).fetchone()[0]
