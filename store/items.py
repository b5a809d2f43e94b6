"""Items of a study: written all at once or not at all."""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pandas as pd

from fairval.errors import StoreError
from fairval.store import running
from fairval.store.engine import Connection, Row, immediate
from fairval.store.order import serve_rank, study_seed, template_of


def insert_items(db: Connection, study_id: str, rows: Sequence[Row]) -> list[tuple[str, int, bool]]:
    """Insert prepared item rows (item_id, data, source_line, source_format, gold, practice).

    Refuses the whole batch when any id is taken already, naming it. Returns (item_id, position,
    gold) of the items that are served (not practice), for their loads.
    """
    with immediate(db, study_id):
        start = db.scalar("SELECT COALESCE(MAX(position), -1) + 1 FROM items WHERE study_id = ?", [study_id])
        ids = [r["item_id"] for r in rows]
        taken = _existing_ids(db, study_id, ids)
        if taken:
            raise StoreError(f"item id {sorted(taken)[0]!r} is in study {study_id!r} already "
                             f"({len(taken)} of the file's ids are); nothing was imported")
        seed = study_seed(db, study_id)
        db.insert("items", [
            {"study_id": study_id, "position": start + i, "item_id": r["item_id"],
             "serve_rank": serve_rank(seed, study_id, r["item_id"]), "template": template_of(r["data"]),
             # a JSONL line is already the JSON of its row: stored as read, not serialised again
             "data": r["source_line"] if r.get("source_line") else json.dumps(r["data"], ensure_ascii=False),
             "source_line": r.get("source_line"), "source_format": r["source_format"],
             "gold": json.dumps(r["gold"]) if r.get("gold") else None,
             "practice": int(bool(r.get("practice")))} for i, r in enumerate(rows)])
        running.forget(db, study_id)
    return [(r["item_id"], start + i, bool(r.get("gold"))) for i, r in enumerate(rows) if not r.get("practice")]


def _existing_ids(db: Connection, study_id: str, ids: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(ids), 500):
        chunk = list(ids[start:start + 500])
        marks = ",".join("?" * len(chunk))
        found |= {r[0] for r in db.execute(
            f"SELECT item_id FROM items WHERE study_id = ? AND item_id IN ({marks})",
            [study_id, *chunk])}
    return found


def item_ids(db: Connection, study_id: str) -> set[str]:
    return {r[0] for r in db.execute("SELECT item_id FROM items WHERE study_id = ?", [study_id])}


def judge_only_ids(db: Connection, study_id: str) -> set[str]:
    """The pairs outside a drawn human sample (`fairval study sample`): the judge's alone."""
    return {r[0] for r in db.execute("SELECT item_id FROM items WHERE study_id = ? AND judge_only = 1", [study_id])}


def get_item(db: Connection, study_id: str, item_id: str) -> Row | None:
    rows = list(db.query("SELECT * FROM items WHERE study_id = ? AND item_id = ?",
                         [study_id, item_id]))
    return _decode(rows[0]) if rows else None


def list_items(db: Connection, study_id: str, *, practice: bool | None = None) -> list[Row]:
    sql = "SELECT * FROM items WHERE study_id = ?"
    args: list[Any] = [study_id]
    if practice is not None:
        sql += " AND practice = ?"
        args.append(int(practice))
    return [_decode(r) for r in db.query(sql + " ORDER BY position", args)]


def has_regular_items(db: Connection, study_id: str) -> bool:
    """Any item raters are assigned (not practice, not gold, not left to the judge), or an adaptive
    design's pair still to be decided."""
    return bool(db.scalar("SELECT EXISTS (SELECT 1 FROM items WHERE study_id = ? AND practice = 0 AND gold IS NULL "
                          "AND (judge_only = 0 OR (decision_order IS NOT NULL AND decided_at IS NULL)))", [study_id]) == 1)


def leave_to_judge(db: Connection, study_id: str, items: Sequence[str]) -> None:
    """Inside the caller's write transaction: these items become judge-only (never served)."""
    db.executemany("UPDATE items SET judge_only = 1 WHERE study_id = ? AND item_id = ?",
                   [(study_id, i) for i in items])
    running.forget(db, study_id)


def record_inclusion(db: Connection, study_id: str, probabilities: dict[str, float]) -> None:
    """Inside the caller's write transaction: each pair's chance of being drawn for people."""
    db.executemany("UPDATE items SET inclusion_probability = ? WHERE study_id = ? AND item_id = ?",
                   [(float(p), study_id, i) for i, p in probabilities.items()])
    running.forget(db, study_id)


def inclusion_probabilities(db: Connection, study_id: str) -> dict[str, float]:
    """item_id -> its chance of being drawn, for a study sampled actively (else empty)."""
    return {r[0]: r[1] for r in db.execute("SELECT item_id, inclusion_probability FROM items WHERE study_id = ? "
                                           "AND inclusion_probability IS NOT NULL", [study_id])}


def plan_decisions(db: Connection, study_id: str, order: dict[str, int], uncertainty: dict[str, float]) -> None:
    """Inside the caller's write transaction: the adaptive design's pairs, each with its place in the
    decision order and the judge's uncertainty, all held back (judge_only) until decided."""
    db.executemany("UPDATE items SET decision_order = ?, uncertainty = ?, judge_only = 1, inclusion_probability = NULL, "
                   "decided_at = NULL WHERE study_id = ? AND item_id = ?",
                   [(int(order[i]), float(uncertainty[i]), study_id, i) for i in order])


def next_undecided(db: Connection, study_id: str) -> Row | None:
    """The first pair of the decision order not decided yet (item_id, position, decision_order, uncertainty)."""
    rows = db.query("SELECT item_id, position, decision_order, uncertainty FROM items WHERE study_id = ? AND decided_at IS NULL "
                    "AND decision_order IS NOT NULL ORDER BY decision_order LIMIT 1", [study_id])
    return rows[0] if rows else None


def record_decision(db: Connection, study_id: str, item_id: str, chance: float, least: float, kept: bool,
                    at: float, mix: float) -> None:
    """Inside the caller's write transaction: the pair's chance at the moment it was decided, the least
    chance any pair had then, the share of the uniform chance (τ) the chances were set with, and whether
    it went to people (then it is served like any regular item)."""
    db.execute("UPDATE items SET inclusion_probability = ?, least_chance = ?, decision_mix = ?, decided_at = ?, "
               "judge_only = ? WHERE study_id = ? AND item_id = ? AND decided_at IS NULL",
               [float(chance), float(least), float(mix), float(at), 0 if kept else 1, study_id, item_id])


def decisions_frame(db: Connection, study_id: str) -> pd.DataFrame:
    """The adaptive design's pairs in decision order: item_id, decision_order, uncertainty, chance, least
    (the least chance of any pair then) and mix (τ, the share of the uniform chance the chances were set
    with; both NaN until decided, or when decided before fairval kept them), kept, decided_at."""
    rows = db.query("SELECT item_id, decision_order, uncertainty, inclusion_probability AS chance, "
                    "least_chance AS least, decision_mix AS mix, judge_only, decided_at FROM items WHERE study_id = ? "
                    "AND decision_order IS NOT NULL ORDER BY decision_order", [study_id])
    frame = pd.DataFrame(rows, columns=["item_id", "decision_order", "uncertainty", "chance", "least", "mix",
                                        "judge_only", "decided_at"])
    frame[["chance", "least", "mix"]] = frame[["chance", "least", "mix"]].astype(float)
    frame["kept"] = frame["decided_at"].notna() & (frame["judge_only"] == 0)
    return frame.drop(columns="judge_only")


def template_span(db: Connection, study_id: str) -> int:
    """How many templates the study's items fill: 0, 1, or 2 for two or more (two index seeks)."""
    low, high = db.execute("SELECT (SELECT MIN(template) FROM items WHERE study_id = :s AND template IS NOT NULL), "
                           "(SELECT MAX(template) FROM items WHERE study_id = :s AND template IS NOT NULL)",
                           {"s": study_id}).fetchone()
    return 0 if low is None else 1 if low == high else 2


def largest_template(db: Connection, study_id: str) -> int:
    """The most items any one template of the study has (0: none has a template); an index-only scan."""
    return int(db.scalar("SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM items WHERE study_id = ? "
                         "AND template IS NOT NULL GROUP BY template) t", [study_id]))


def template_sizes(db: Connection, study_id: str) -> dict[str | None, int]:
    """Regular items (neither gold nor practice nor left to the judge) per template (None: of no template)."""
    return {t: int(n) for t, n in db.execute(
        "SELECT template, COUNT(*) FROM items WHERE study_id = ? AND gold IS NULL AND practice = 0 "
        "AND judge_only = 0 GROUP BY template", [study_id]).fetchall()}


def has_other_template(db: Connection, study_id: str, template: str) -> bool:
    """Does any item of the study belong to a template other than this one (an index seek)?"""
    return bool(db.scalar("SELECT EXISTS (SELECT 1 FROM items WHERE study_id = ? AND template IS NOT NULL "
                          "AND template <> ?)", [study_id, template]) == 1)


def gold_count(db: Connection, study_id: str) -> int:
    """The study's gold items (attention checks) that raters can be served: not practice ones."""
    return int(db.scalar("SELECT COUNT(*) FROM items WHERE study_id = ? AND gold IS NOT NULL AND practice = 0",
                         [study_id]))


def has_practice(db: Connection, study_id: str) -> bool:
    return bool(db.execute("SELECT EXISTS (SELECT 1 FROM items WHERE study_id = ? AND practice = 1)",
                           [study_id]).fetchone()[0] == 1)


def items_frame(db: Connection, study_id: str) -> pd.DataFrame:
    """One row per item: item_id, position, gold, practice, judge_only, data (dict)."""
    items = list_items(db, study_id)
    cols = ["item_id", "position", "gold", "practice", "judge_only", "data", "source_line", "source_format"]
    return pd.DataFrame(items, columns=cols)


def _decode(row: Row) -> Row:
    row["data"] = json.loads(row["data"])
    row["gold"] = json.loads(row["gold"]) if row["gold"] else None
    row["practice"] = bool(row["practice"])
    row["judge_only"] = bool(row.get("judge_only"))
    return row


def template_count(db: Connection, study_id: str) -> int:
    """How many templates the study's items are fills of: the rule against two fills of one template in a
    row binds only where there are two or more."""
    return int(db.scalar("SELECT COUNT(DISTINCT template) FROM items WHERE study_id = ? AND template IS NOT NULL",
                         [study_id]) or 0)
