"""A pilot's evidence for a draw, from a pair study people rated and the same judge scored: for an active
draw, whether the judge's errors grow with its stated uncertainty (analysis.active.choose_floor); for a
draw by group pair, each group pair's spread."""
from __future__ import annotations

import dataclasses

import numpy as np

from fairval.analysis.active import choose_floor, tuned_lambda, uncertainties_of
from fairval.analysis.calibration import human_scores
from fairval.analysis.judge_validity import paired
from fairval.annotate.material.pairs import scored_question, strata_of
from fairval.annotate.results.numbers import load_study_data, scored_ratings
from fairval.annotate.results.strata import rectifier_spread, stratum_ppi
from fairval.errors import StudyError
from fairval.store import Connection


def pilot_evidence(db: Connection, pilot: str | None, budget: int):
    """What draw_active_sample's `pilot` takes: pilot_floor on this pilot study, or None without one."""
    if not pilot:
        return None
    return lambda judge, uncertainty: pilot_floor(db, pilot, judge, uncertainty, budget)


def pilot_floor(db: Connection, pilot: str, judge: str, uncertainty: np.ndarray, budget: int) -> dict:
    """choose_floor on the pilot study's rated pairs scored by `judge`: their uncertainty and the residual
    of the per-pair human mean from λ × the judge's score, λ tuned on the pilot as PPI++ does."""
    data = load_study_data(db, pilot)
    if scored_question(data.study.task) is None:
        raise StudyError(f"the pilot {pilot!r} is {data.study.task.name}: a pilot is a pair study people rated")
    human = human_scores(scored_ratings(data))
    judged = data.lmra[data.lmra["model"] == judge].set_index("item_id")
    rated = judged[judged.index.isin(human.index)]
    y, f = human[rated.index].to_numpy(float), rated["score"].to_numpy(float)
    lam = tuned_lambda(y, f, np.ones(len(y)), judged["score"].to_numpy(float)) if len(y) > 1 else 1.0
    u = uncertainties_of(rated["probabilities"], rated["score"])
    return {**dataclasses.asdict(choose_floor(u, y - lam * f, uncertainty, budget)), "study": pilot}


def pilot_spreads(db: Connection, pilot: str, judge: str) -> dict:
    """What draw_stratified_sample's `spreads` returns: per group pair of the pilot (a pair study people rated
    and `judge` scored), the spread of its PPI rectifier y − λ_k f over its rated pairs, λ_k tuned within it
    as the numbers' per-group PPI does (results.strata)."""
    data = load_study_data(db, pilot)
    if scored_question(data.study.task) is None:
        raise StudyError(f"the pilot {pilot!r} is {data.study.task.name}: a pilot is a pair study people rated")
    human = human_scores(scored_ratings(data))
    judged = data.lmra[data.lmra["model"] == judge].set_index("item_id")["score"]
    strata = strata_of(data.items)
    spreads = {}
    for name, ids in strata.groupby(strata, sort=True).groups.items():
        in_stratum = judged[judged.index.isin(ids)]
        rated = paired(human, in_stratum)
        spread = rectifier_spread(rated, stratum_ppi(rated, in_stratum))
        if spread is not None:
            spreads[name] = spread
    if not spreads:
        raise StudyError(f"the pilot {pilot!r} has no group pair with 2 pairs people rated and {judge!r} scored, and 1 "
                         "it scored alone: no spread to allocate by")
    return {"study": pilot, "judge": judge, "spreads": spreads}
