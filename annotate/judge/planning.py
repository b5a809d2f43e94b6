"""What the planner works from: a study's ratings so far (the pilot, resampled), or values the researcher
assumes before any pilot (simulated). Either way the same table of designs, and a sentence saying which."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from fairval.analysis.planner import Assumptions, plan, plan_assumed, ratings_per_pair
from fairval.annotate.material.pairs import scored_question
from fairval.annotate.outputs import formats
from fairval.annotate.results.numbers import judge_scores, load_study_data, scored_ratings
from fairval.errors import StudyError
from fairval.store import Connection


@dataclass(frozen=True)
class StudyPlan:
    designs: pd.DataFrame     # pairs, raters_per_pair, rho_width, sign_width, harm_width
    source: str               # where the widths come from, printed beside them
    pilot_pairs: int | None = None            # the pilot's rated pairs (None: planned from assumed values)
    pilot_raters_per_pair: int | None = None  # the most ratings a pilot pair has: beyond it, widths are conservative


def plan_study(db: Connection, study_id: str, *, model: str | None = None, seed: int = 0) -> StudyPlan:
    data = load_study_data(db, study_id)
    if scored_question(data.study.task) is None:
        raise StudyError(f"study {study_id!r} is {data.study.task.name}: planning needs a pair study")
    _, judge = judge_scores(data, model)
    ratings = scored_ratings(data).rename(columns={"canonical": "score"})[["item_id", "rater_id", "score"]]
    try:
        designs = plan(ratings, judge, seed=seed)
    except ValueError as e:
        raise StudyError(f"study {study_id!r}: {e}") from None
    per_pair = ratings_per_pair(ratings, judge)
    fewest, most = int(per_pair.min()), int(per_pair.max())
    span = str(most) if fewest == most else f"{fewest}–{most}"
    return StudyPlan(designs, f"resampled from the pilot: {formats.count(len(per_pair), 'pair')} with "
                              f"{span} ratings each and the judge's scores; with more "
                              f"than {most} raters per pair the pilot's ratings are drawn again, so those "
                              "widths are conservative", len(per_pair), most)


def plan_from_assumptions(assumed: Assumptions, *, seed: int = 0) -> StudyPlan:
    try:
        designs = plan_assumed(assumed, seed=seed)
    except ValueError as e:
        raise StudyError(f"assumed values: {e}") from None
    return StudyPlan(designs, f"simulated from assumed values, no pilot: the judge's Pearson r with the mean of many "
                              f"people {assumed.rho:g}, single raters' agreement α {assumed.alpha:g}, one "
                              f"rating's SD {assumed.sd:g}, H {assumed.harm:g} (normal ratings)")
