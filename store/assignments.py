"""Who was served what and when: the ledger the assignment policy reads inside one write lock."""
from __future__ import annotations

from sqlite_utils import Database

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


def load_by_item(db: Database, study_id: str, since: float, balance_by: str | None) -> list[dict]:
    """Per non-practice item: distinct raters who answered or hold an unexpired slot, by group.

    Returns rows (item_id, position, gold, rater_group, n) with one row per item and group
    (rater_group NULL when unbalanced); items nobody holds appear with n = 0.
    """
    group = _group_column(balance_by)
    return list(db.query(
        f"""WITH holders AS (
                SELECT study_id, item_id, rater_id FROM assignments
                 WHERE study_id = :s AND (answered_at IS NOT NULL OR served_at >= :since)
                UNION
                SELECT study_id, item_id, rater_id FROM ratings WHERE study_id = :s)
            SELECT i.item_id, i.position, i.gold IS NOT NULL AS gold, {group} AS rater_group,
                   COUNT(h.rater_id) AS n
              FROM items i
              LEFT JOIN holders h ON h.study_id = i.study_id AND h.item_id = i.item_id
              LEFT JOIN raters r ON r.study_id = h.study_id AND r.rater_id = h.rater_id
             WHERE i.study_id = :s AND i.practice = 0
             GROUP BY i.item_id, rater_group
             ORDER BY i.position""", {"s": study_id, "since": since}))


def _group_column(balance_by: str | None) -> str:
    if balance_by is None:
        return "NULL"
    if balance_by not in ATTRIBUTES:
        raise ValueError(f"balance attribute must be one of {ATTRIBUTES}, not {balance_by!r}")
    return f"r.{balance_by}"


def seen_items(db: Database, study_id: str, rater_id: str) -> set[str]:
    """Items this rater was ever served or rated (served slots that timed out count: never twice)."""
    return {r[0] for r in db.execute(
        """SELECT item_id FROM assignments WHERE study_id = ? AND rater_id = ?
           UNION SELECT item_id FROM ratings WHERE study_id = ? AND rater_id = ?""",
        [study_id, rater_id, study_id, rater_id])}


def insert_assignment(db: Database, study_id: str, rater_id: str, item_id: str, *,
                      flipped: bool, served_at: float) -> None:
    db["assignments"].insert({"study_id": study_id, "rater_id": rater_id, "item_id": item_id,
                              "flipped": int(flipped), "served_at": served_at}, ignore=True)


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
