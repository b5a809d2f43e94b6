"""The adaptive design's mix τ as answers come in (annotate.adaptive.next_pair): one row per study, the complete
kept pairs counted and the τ chosen from them, stepped in the write transaction of the answer that
completes a kept pair, so a decision reads a row instead of every rating. store.running.forget drops it
with the running interval (the same writes change both); the next decision rebuilds it from the answers."""
from __future__ import annotations

from typing import Any

from fairval.store.engine import Connection, Row


def state(db: Connection, study_id: str) -> Row | None:
    """{complete, mix}, or None when there is none (never built, or forgotten)."""
    row = db.execute("SELECT complete, mix FROM design_mixes WHERE study_id = ?", [study_id]).fetchone()
    return None if row is None else {"complete": int(row[0]), "mix": float(row[1])}


def save(db: Connection, study_id: str, complete: int, mix: float) -> None:
    """Inside the caller's write transaction."""
    db.insert("design_mixes", [{"study_id": study_id, "complete": int(complete), "mix": float(mix)}],
              upsert_on=("study_id",))


def forget(db: Connection, study_id: str) -> None:
    """Inside the caller's write transaction: rebuilt at the next decision."""
    db.execute("DELETE FROM design_mixes WHERE study_id = ?", [study_id])


def completes_kept(db: Connection, study_id: str, item_id: str, question: str, rater_id: str, raters: int) -> bool:
    """Did rater_id's answer to `question`, just stored, complete a kept pair of the adaptive design: is the
    pair kept, is the rater its raters-th distinct rater (each rater counted at their first answer) and is
    this their only answer to it? Two index seeks, at most `raters` + 1 rows read past the pair's first."""
    kept = db.scalar("SELECT 1 FROM items WHERE study_id = ? AND item_id = ? AND decision_order IS NOT NULL "
                     "AND decided_at IS NOT NULL AND judge_only = 0", [study_id, item_id])
    if kept is None:
        return False
    seen: list[str] = []
    mine = 0
    for (rater,) in db.execute("SELECT rater_id FROM ratings WHERE study_id = ? AND item_id = ? AND question = ? "
                               "ORDER BY rating_id", [study_id, item_id, question]):
        mine += rater == rater_id
        if rater not in seen:
            seen.append(rater)
    return len(seen) >= raters and seen[raters - 1] == rater_id and mine == 1


def kept_answers(db: Connection, study_id: str, question: str, judge: str) -> list[tuple[Any, ...]]:
    """Every answer to `question` of the adaptive design's kept pairs, in the order stored: (item_id,
    rater_id, canonical, the pair's uncertainty, its chance, the judge's score)."""
    return [tuple(r) for r in db.execute(
        "SELECT r.item_id, r.rater_id, r.canonical, i.uncertainty, i.inclusion_probability, s.score "
        "FROM ratings r JOIN items i ON i.study_id = r.study_id AND i.item_id = r.item_id "
        "LEFT JOIN lmra_scores s ON s.study_id = r.study_id AND s.item_id = r.item_id AND s.model = ? "
        "WHERE r.study_id = ? AND r.question = ? AND i.decision_order IS NOT NULL AND i.decided_at IS NOT NULL "
        "AND i.judge_only = 0 ORDER BY r.rating_id", [judge, study_id, question])]
