"""A study's ratings so far as the pilot the planner resamples."""
from __future__ import annotations

import pandas as pd

from analysis.planner import plan
from annotate.pairs import scored_question
from annotate.results import load_study_data, scored_ratings
from annotate.studies import StudyError
from store import Database


def plan_study(db: Database, study_id: str, *, model: str | None = None, seed: int = 0) -> pd.DataFrame:
    data = load_study_data(db, study_id)
    if scored_question(data.study.task) is None:
        raise StudyError(f"study {study_id!r} is {data.study.task.name}: planning needs a pair study")
    models = sorted(data.lmra["model"].unique())
    if not models or (model and model not in models):
        raise StudyError(f"study {study_id!r} has no scores from " + (repr(model) if model else "any judge")
                         + "; the planner needs the judge's scores beside the pilot's ratings")
    judge = data.lmra[data.lmra["model"] == (model or models[0])].set_index("item_id")["score"]
    ratings = scored_ratings(data).rename(columns={"canonical": "score"})[["item_id", "rater_id", "score"]]
    try:
        return plan(ratings, judge, seed=seed)
    except ValueError as e:
        raise StudyError(f"study {study_id!r}: {e}") from None
