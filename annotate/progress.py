"""A study's progress for the researcher: items complete, ratings by group, activity, speed, flags."""
from __future__ import annotations

import time

from annotate.results import StudyData, load_study_data
from store import Database
from store import assignments as ledger


def study_progress(db: Database, study_id: str, *, data: StudyData | None = None,
                   now: float | None = None) -> dict:
    data = data or load_study_data(db, study_id)
    s = data.study.settings
    now = time.time() if now is None else now
    regular = data.regular_items
    judged = data.ratings.drop_duplicates(["item_id", "rater_id"])
    per_item = judged.groupby("item_id")["rater_id"].nunique()
    group_col = f"rater_{s.balance_by or 'gender'}"
    by_group = judged[group_col].fillna("(not asked)").value_counts().sort_index()
    seconds = judged["seconds"].dropna()
    return {
        "n_items": len(regular),
        "items_complete": int((per_item.reindex(regular["item_id"], fill_value=0) >= s.raters_per_item).sum()),
        "judgments": len(judged),
        "judgments_needed": len(regular) * s.raters_per_item,
        "judgments_by_group": {str(k): int(v) for k, v in by_group.items()},
        "group_attribute": s.balance_by or "gender",
        "active_raters": ledger.active_raters(db, data.study.study_id, now - s.timeout_seconds),
        "median_seconds": float(seconds.median()) if len(seconds) else None,
        "flagged_raters": {q.rater_id: list(q.flags) for q in data.quality if q.flags},
        "status": data.study.status,
    }
