"""LMRA (LLM judge) scores per item and model."""
from __future__ import annotations

import json
from collections.abc import Sequence

import pandas as pd

from fairval.store import running
from fairval.store.engine import Database, immediate
def upsert_scores(db: Database, study_id: str, rows: Sequence[dict]) -> int:
    """Store scores, replacing an earlier score for the same item and model (a re-run supersedes)."""
    with immediate(db, study_id):
        db.insert("lmra_scores", [
            {"study_id": study_id, "item_id": r["item_id"], "model": r["model"], "score": r["score"],
             "probabilities": json.dumps(r["probabilities"]) if r.get("probabilities") else None}
            for r in rows], upsert_on=("study_id", "item_id", "model"))
        running.forget(db, study_id)            # the judge's mean and scores are in every term
    return len(rows)


def scores_frame(db: Database, study_id: str) -> pd.DataFrame:
    """item_id, model, score, and the answer probabilities of both orders (a dict, or None)."""
    rows = list(db.query("SELECT item_id, model, score, probabilities FROM lmra_scores WHERE study_id = ? "
                         "ORDER BY model, item_id", [study_id]))
    frame = pd.DataFrame(rows, columns=["item_id", "model", "score", "probabilities"])
    frame["probabilities"] = [json.loads(p) if isinstance(p, str) else None for p in frame["probabilities"]]
    return frame
