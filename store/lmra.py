"""LMRA (LLM judge) scores per item and model."""
from __future__ import annotations

import json
from collections.abc import Sequence

import pandas as pd

from fairval.store import running
from fairval.store.engine import Connection, Row, immediate


def upsert_scores(db: Connection, study_id: str, rows: Sequence[Row]) -> int:
    """Store scores, replacing an earlier score for the same item and model (a re-run supersedes)."""
    with immediate(db, study_id):
        db.insert("lmra_scores", [
            {"study_id": study_id, "item_id": r["item_id"], "model": r["model"], "score": r["score"],
             "probabilities": json.dumps(r["probabilities"]) if r.get("probabilities") else None}
            for r in rows], upsert_on=("study_id", "item_id", "model"))
        running.forget(db, study_id)            # the judge's mean and scores are in every term
    return len(rows)


# A judge asked again with the two groups' labels exchanged (`lmra run --swap-groups`) is stored as its own
# model, its name and this suffix: its calls resume and are paid once like any run's, and it is no judge of
# the study's numbers (scores_frame leaves it out; swapped_frame reads it).
SWAPPED = " [groups swapped]"


def scores_frame(db: Connection, study_id: str) -> pd.DataFrame:
    """item_id, model, score, and the answer probabilities of both orders (a dict, or None); the judges as
    asked, not their runs with the group labels swapped."""
    frame = _frame(db, study_id)
    return frame[~frame["model"].astype(str).str.endswith(SWAPPED)].reset_index(drop=True)


def swapped_frame(db: Connection, study_id: str) -> pd.DataFrame:
    """The same columns for the runs with the group labels swapped, `model` the judge's own name."""
    frame = _frame(db, study_id)
    frame = frame[frame["model"].astype(str).str.endswith(SWAPPED)].reset_index(drop=True)
    return frame.assign(model=frame["model"].astype(str).str[:-len(SWAPPED)])


def _frame(db: Connection, study_id: str) -> pd.DataFrame:
    rows = list(db.query("SELECT item_id, model, score, probabilities FROM lmra_scores WHERE study_id = ? "
                         "ORDER BY model, item_id", [study_id]))
    frame = pd.DataFrame(rows, columns=["item_id", "model", "score", "probabilities"])
    frame["probabilities"] = [json.loads(p) if isinstance(p, str) else None for p in frame["probabilities"]]
    return frame
