"""Who was served what and when: the ledger the assignment policy reads inside one write lock.

Item loads (how many raters hold each item) are kept beside it in store/loads.py.
"""
from __future__ import annotations

from fairval.store.engine import Connection, Row


def open_assignment(db: Connection, study_id: str, rater_id: str, since: float) -> Row | None:
    """The rater's served-but-unanswered slot that is still held, oldest first."""
    rows = db.query(
        """SELECT * FROM assignments WHERE study_id = ? AND rater_id = ? AND counted = 1
             AND answered_at IS NULL AND served_at >= ? ORDER BY served_at LIMIT 1""",
        [study_id, rater_id, since])
    return rows[0] if rows else None


def get_assignment(db: Connection, study_id: str, rater_id: str, item_id: str) -> Row | None:
    rows = db.query("SELECT * FROM assignments WHERE study_id = ? AND rater_id = ? AND item_id = ?",
                    [study_id, rater_id, item_id])
    return rows[0] if rows else None


def insert_assignment(db: Connection, study_id: str, rater_id: str, item_id: str, *,
                      flipped: bool, served_at: float) -> None:
    """A new open slot; only store.loads.serve_slot calls this, which moves the item's load with it."""
    db.insert("assignments", [{"study_id": study_id, "rater_id": rater_id, "item_id": item_id,
                               "flipped": int(flipped), "served_at": served_at, "counted": 1}])


def mark_answered(db: Connection, study_id: str, rater_id: str, item_id: str, at: float) -> None:
    """The slot is answered: its rating now holds the item, so the slot itself no longer counts."""
    db.execute("UPDATE assignments SET answered_at = ?, counted = 0 WHERE study_id = ? AND rater_id = ? "
               "AND item_id = ? AND answered_at IS NULL", [at, study_id, rater_id, item_id])


def release_for_ratings(db: Connection, study_id: str, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """For (item, rater) pairs about to get their first rating: clear a counted slot (the rating
    takes its place in the load). Returns the pairs that had none, which are new holders."""
    new = []
    for item_id, rater_id in pairs:
        cleared = db.execute("UPDATE assignments SET counted = 0 WHERE study_id = ? AND rater_id = ? "
                             "AND item_id = ? AND counted = 1", [study_id, rater_id, item_id]).rowcount
        if not cleared:
            new.append((item_id, rater_id))
    return new


def late_and_full(db: Connection, study_id: str, assignment: Row, target: int) -> bool:
    """A released slot's answer (its time ran out, or the clock jumped) when the item is a regular one that
    `target` other raters already hold (rated, or a slot still counted): keeping it would pass the cap."""
    item_id, rater_id = assignment["item_id"], assignment["rater_id"]
    row = db.execute(
        """SELECT i.gold IS NULL AND i.practice = 0,
                  EXISTS (SELECT 1 FROM ratings WHERE study_id = ? AND item_id = ? AND rater_id = ?),
                  (SELECT COUNT(*) FROM (SELECT rater_id FROM ratings WHERE study_id = ? AND item_id = ?
                                         UNION SELECT rater_id FROM assignments
                                          WHERE study_id = ? AND item_id = ? AND counted = 1) AS holders)
             FROM items i WHERE i.study_id = ? AND i.item_id = ?""",
        [study_id, item_id, rater_id, study_id, item_id, study_id, item_id, study_id, item_id]).fetchone()
    return row is not None and bool(row[0]) and not row[1] and row[2] >= target


def answered_count(db: Connection, study_id: str, rater_id: str) -> tuple[int, int]:
    """(regular items answered, gold items answered) by this rater."""
    row = db.execute(
        """SELECT COUNT(*) FILTER (WHERE i.gold IS NULL), COUNT(*) FILTER (WHERE i.gold IS NOT NULL)
             FROM assignments a JOIN items i USING (study_id, item_id)
            WHERE a.study_id = ? AND a.rater_id = ? AND a.answered_at IS NOT NULL
              AND i.practice = 0""", [study_id, rater_id]).fetchone()
    return int(row[0]), int(row[1])


def templates_served(db: Connection, study_id: str, rater_id: str) -> list[str | None]:
    """The template of each item served to this rater, in the order served (None: an item of its own)."""
    return [r[0] for r in db.execute(
        """SELECT i.template FROM assignments a JOIN items i ON i.study_id = a.study_id AND i.item_id = a.item_id
            WHERE a.study_id = ? AND a.rater_id = ?
            ORDER BY a.served_at, a.answered_at IS NULL, a.answered_at""", [study_id, rater_id])]


def last_fill_elsewhere(db: Connection, study_id: str, rater_id: str, template: str, since: float,
                        cap: int | None = None) -> int:
    """Raters other than this one, not finished, active since `since` and short of `cap` regular items answered
    (None: no cap; a rater at the cap is served nothing more), whose last fill served (held or answered) is of a
    template other than `template`: each of them wants a fill of `template` next."""
    return int(db.scalar(
        """SELECT COUNT(*) FROM assignments a
             JOIN items i ON i.study_id = a.study_id AND i.item_id = a.item_id
             JOIN raters p ON p.study_id = a.study_id AND p.rater_id = a.rater_id
            WHERE a.study_id = :s AND a.rater_id <> :r AND p.finished_at IS NULL
              AND COALESCE(a.answered_at, a.served_at) >= :since
              AND i.gold IS NULL AND i.template IS NOT NULL AND i.template <> :t
              AND NOT EXISTS (SELECT 1 FROM assignments b JOIN items j ON j.study_id = b.study_id AND j.item_id = b.item_id
                               WHERE b.study_id = :s AND b.rater_id = a.rater_id AND b.served_at > a.served_at
                                 AND j.gold IS NULL AND j.template IS NOT NULL)""" + ("" if cap is None else _SHORT_OF_CAP),
        {"s": study_id, "r": rater_id, "t": template, "since": since, **({} if cap is None else {"cap": cap})}))


# a rater's regular items answered (answered_count's first), under the cap
_SHORT_OF_CAP = """
              AND (SELECT COUNT(*) FROM assignments c JOIN items k ON k.study_id = c.study_id AND k.item_id = c.item_id
                    WHERE c.study_id = :s AND c.rater_id = a.rater_id AND c.answered_at IS NOT NULL
                      AND k.gold IS NULL AND k.practice = 0) < :cap"""


def any_served(db: Connection, study_id: str) -> bool:
    return bool(db.scalar("SELECT EXISTS (SELECT 1 FROM assignments WHERE study_id = ?)", [study_id]) == 1)


def active_raters(db: Connection, study_id: str, since: float) -> int:
    """Raters served or answering since `since` (still inside the timeout window)."""
    return int(db.scalar("""SELECT COUNT(DISTINCT rater_id) FROM assignments WHERE study_id = ?
                            AND (served_at >= ? OR answered_at >= ?)""", [study_id, since, since]))


def any_lapsed(db: Connection, study_id: str, since: float) -> bool:
    """Is any slot still counted although it was served before `since` and never answered (its rater
    left; the next serve gives it back)?"""
    return bool(db.scalar("""SELECT EXISTS (SELECT 1 FROM assignments WHERE study_id = ? AND counted = 1
                               AND answered_at IS NULL AND served_at < ?)""", [study_id, since]) == 1)


def reserved(db: Connection, study_id: str, since: float) -> tuple[int, float | None]:
    """Regular items reserved by a slot served since `since` and not answered (a rater mid-item, or a tab
    left open: it comes free at its serving + the timeout), and the earliest such serving."""
    row = db.execute("""SELECT COUNT(DISTINCT a.item_id), MIN(a.served_at)
                          FROM assignments a JOIN items i ON i.study_id = a.study_id AND i.item_id = a.item_id
                         WHERE a.study_id = ? AND a.counted = 1 AND a.answered_at IS NULL AND a.served_at >= ?
                           AND i.gold IS NULL AND i.practice = 0""", [study_id, since]).fetchone()
    return int(row[0] or 0), (float(row[1]) if row[1] is not None else None)


def arrival(db: Connection, study_id: str, rater_id: str, now: float) -> int:
    """How many raters of the study were first served before this one (ties by rater id; a rater not
    served yet arrives `now`): the rater's place in the order of arrival, 0 the first."""
    return int(db.scalar(
        """SELECT COUNT(*) FROM (SELECT rater_id, MIN(served_at) AS first FROM assignments
                                  WHERE study_id = :s AND rater_id <> :r GROUP BY rater_id) f
            WHERE f.first < :mine OR (f.first = :mine AND f.rater_id < :r)""",
        {"s": study_id, "r": rater_id, "mine": db.scalar(
            "SELECT COALESCE(MIN(served_at), ?) FROM assignments WHERE study_id = ? AND rater_id = ?",
            [now, study_id, rater_id])}))
