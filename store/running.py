"""A study's running interval for its stopping rule (annotate.rating.running_interval): one row per study, stepped
in the write transaction of the answer that completes a pair, so the stopping check reads a row instead of
recomputing every number. Any write that can change a pair's term (imported ratings, judge scores, items,
settings) forgets the row; the next check rebuilds it from the whole study."""
from __future__ import annotations

import json
from collections.abc import Sequence

from fairval.store import mixes
from fairval.store.engine import Connection, Row


def state(db: Connection, study_id: str) -> Row | None:
    """The stored state (JSON as a dict), or None when there is none (never built, or forgotten)."""
    text = db.scalar("SELECT state FROM running_intervals WHERE study_id = ?", [study_id])
    return None if text is None else json.loads(text)


def interval(db: Connection, study_id: str) -> Row | None:
    """What the stopping check needs, without the state: n (complete pairs counted), value, ci (or None)."""
    row = db.execute("SELECT n, value, ci_low, ci_high FROM running_intervals WHERE study_id = ?",
                     [study_id]).fetchone()
    if row is None:
        return None
    n, value, low, high = row
    return {"n_pairs_complete": n, "value": value, "ci": None if low is None else [low, high]}


def version(db: Connection, study_id: str) -> int | None:
    """The construction the stored state was kept by (annotate.rating.running_interval.VERSION), None before 2."""
    found = state(db, study_id)
    return None if found is None else found.get("basis", {}).get("version")


def save(db: Connection, study_id: str, state: Row, *, n: int, value: float | None,
         ci: Sequence[float | None] | None) -> None:
    """Inside the caller's write transaction (the one that stored the ratings the state counts)."""
    db.insert("running_intervals", [{"study_id": study_id, "state": json.dumps(state), "n": n, "value": value,
                                     "ci_low": None if ci is None else ci[0],
                                     "ci_high": None if ci is None else ci[1]}],
              upsert_on=("study_id",))


def forget(db: Connection, study_id: str) -> None:
    """Inside the caller's write transaction: the state no longer matches the study's data (nor does the
    adaptive design's mix, chosen from the same answers and judge scores: store/mixes.py)."""
    db.execute("DELETE FROM running_intervals WHERE study_id = ?", [study_id])
    mixes.forget(db, study_id)


def completing_pair(db: Connection, study_id: str, item_id: str, question: str) -> Row | None:
    """The item (if a real pair: neither gold nor practice) with its chance of being drawn and the canonical
    answers to `question` of every rater of it, first rater first."""
    item = db.execute("SELECT inclusion_probability FROM items WHERE study_id = ? AND item_id = ? "
                      "AND gold IS NULL AND practice = 0", [study_id, item_id]).fetchone()
    if item is None:
        return None
    answers = [r[0] for r in db.execute(
        "SELECT canonical FROM ratings WHERE study_id = ? AND item_id = ? AND question = ? ORDER BY rating_id",
        [study_id, item_id, question])]
    return {"chance": item[0], "answers": answers}


def judge_score(db: Connection, study_id: str, item_id: str, model: str) -> float | None:
    score = db.scalar("SELECT score FROM lmra_scores WHERE study_id = ? AND item_id = ? AND model = ?",
                      [study_id, item_id, model])
    return None if score is None else float(score)


def decided_from(db: Connection, study_id: str, order: int, limit: int) -> list[Row]:
    """The adaptive design's pairs from place `order` on in the decision order (at most `limit`): item_id,
    decision_order, decided (whether it is), kept (it went to people), chance and least (NULL if not kept)."""
    return db.query("SELECT item_id, decision_order, decided_at IS NOT NULL AS decided, "
                    "CASE WHEN judge_only = 0 THEN 1 ELSE 0 END AS kept, inclusion_probability AS chance, "
                    "least_chance AS least FROM items WHERE study_id = ? AND decision_order >= ? "
                    "ORDER BY decision_order LIMIT ?", [study_id, int(order), int(limit)])


def first_answers(db: Connection, study_id: str, item_id: str, question: str, raters: int) -> list[str]:
    """The canonical answers to `question` of the item's first `raters` raters (each rater's first), in
    the order they were stored."""
    found: dict[str, str] = {}
    for rater, canonical in db.execute("SELECT rater_id, canonical FROM ratings WHERE study_id = ? AND item_id = ? "
                                       "AND question = ? ORDER BY rating_id", [study_id, item_id, question]):
        found.setdefault(rater, canonical)
        if len(found) == raters:
            break
    return list(found.values())
