"""H per group pair, by stratified prediction-powered inference (Fisch et al., "Stratified Prediction-Powered
Inference for Hybrid Language Model Evaluation", NeurIPS 2024): the pairs are split by the groups they
compare (group_a vs group_b), PPI++ runs within each stratum, and the strata's estimates make H as their
mean weighted by each stratum's share of the judged pairs, with se² = Σ w² se². Valid when people's pairs
were drawn at random within each stratum (a uniform draw is); the stratified H refuses an active draw,
whose chances would have to weight each stratum too. Under the adaptive design each stratum's H comes
from its own decided pairs (adaptive.estimate); under trust or escalate there is none. `allocation`: how
the same number of rated pairs would best be spread across the strata (analysis.allocation)."""
from __future__ import annotations

import math
from typing import cast

import numpy as np
import pandas as pd

from fairval.analysis import judge_validity as jv
from fairval.analysis.allocation import neyman_allocation, variance_ratio
from fairval.analysis.calibration import human_scores
from fairval.analysis.interval import Interval
from fairval.analysis.judge_fairness import error_by_group, label_swap
from fairval.analysis.judge_validity import Z95, inside
from fairval.analysis.ppi import FEW_PAIRS, ppi_mean
from fairval.analysis.reasons import Why, because
from fairval.annotate.material.design import Design
from fairval.annotate.material.pairs import strata_of
from fairval.annotate.results.blocks import (
    Allocation,
    EqualError,
    Judge,
    JudgeError,
    JudgeFairness,
    LabelSwap,
    PairGroup,
    PairGroups,
    Ppi,
    Stratified,
)
from fairval.annotate.results.escalation import REASON


def by_pair_group(human: pd.Series, judge: pd.Series, items: pd.DataFrame, design: Design,
                  adaptive: dict[str, Ppi] | None = None) -> PairGroups:
    """Per stratum: n pairs judged, n rated, H by PPI++ with its interval, sign agreement; and `stratified`,
    the overall H from the strata (or a reason). `adaptive`: under the adaptive design, each stratum's H
    (adaptive.estimate.adaptive_group_ppi) in place of PPI++."""
    strata = strata_of(items)
    judge = judge.dropna()
    out: dict[str, PairGroup] = {}
    parts: list[tuple[int, Ppi]] = []
    spreads: dict[str, float] = {}
    for name, ids in strata.groupby(strata, sort=True).groups.items():
        in_stratum = judge[judge.index.isin(ids)]
        rated = jv.paired(human, in_stratum)
        if design.escalate:
            estimate = Ppi.of(value=None, ci=None, reason=REASON)
        elif design.adaptive:
            estimate = (adaptive or {}).get(name) or Ppi.of(value=None, ci=None, reason="no pair decided yet")
        else:
            estimate = stratum_ppi(rated, in_stratum)
        spread = rectifier_spread(rated, estimate)
        if spread is not None:
            spreads[name] = spread
        agreement = jv.sign_agreement(human, in_stratum)
        out[name] = PairGroup.of(n_pairs=len(in_stratum), n_rated=len(rated), ppi=estimate,
                                 sign_agreement=agreement.value, sign_agreement_ci=agreement.ci)
        parts.append((len(in_stratum), estimate))
    sizes = {g: (row.n_pairs, row.n_rated) for g, row in out.items()}
    return PairGroups.of(groups=out, stratified=stratified(parts, design), allocation=allocation(sizes, spreads, design))


def judge_fairness(human: pd.Series, judge: pd.Series, strata: pd.Series, swapped: pd.DataFrame | None,
                   model: str | None, *, n_boot: int, seed: int) -> JudgeFairness:
    """The fairness judge's own audit (analysis.judge_fairness), `lmra.by_pair_group`: per group pair its
    error (judge − people) and sign agreement, Welch's test of equal error, and `label_swap`, overall and
    per group pair, when the judge was asked with the group labels swapped (`lmra run --swap-groups`)."""
    found = error_by_group(human, judge.dropna(), strata, n_boot=n_boot, seed=seed)
    groups = {name: JudgeError.of_result(row) for name, row in found.groups.items()}
    equal = EqualError.of_result(found.equal_error)
    again = None if swapped is None else swapped[swapped["model"] == model].set_index("item_id")["score"]
    if again is None or again.empty:
        return JudgeFairness.of(groups=groups, equal_error=equal, label_swap=LabelSwap.of_result(
            label_swap(judge, pd.Series(dtype=float)), reason=because(Why.NOT_ASKED_SWAPPED)))
    for name, ids in strata.groupby(strata, sort=True).groups.items():
        groups[str(name)] = groups[str(name)].with_(
            label_swap=LabelSwap.of_result(label_swap(judge[judge.index.isin(ids)], again)))
    return JudgeFairness.of(groups=groups, equal_error=equal, label_swap=LabelSwap.of_result(label_swap(judge, again)))


def stratum_ppi(rated: pd.DataFrame, in_stratum: pd.Series) -> Ppi:
    """PPI++ within one stratum: its rated pairs (columns human, judge) and every pair the judge scored in it."""
    unrated = in_stratum[~in_stratum.index.isin(rated.index)]
    return Ppi.of(**ppi_mean(rated["human"].to_numpy(), rated["judge"].to_numpy(), unrated.to_numpy()).shown())


def rectifier_spread(rated: pd.DataFrame, estimate: Ppi | None) -> float | None:
    """The spread of the PPI rectifier y − λ f over the rated pairs, with the estimate's λ: what Neyman's
    allocation weighs a stratum by. None where the estimate has no λ or fewer than 2 pairs are rated."""
    lam = None if estimate is None else estimate.lambda_
    if lam is None or len(rated) < 2:
        return None
    return float((rated["human"] - lam * rated["judge"]).std(ddof=1))


def allocation(sizes: dict[str, tuple[int, int]], spreads: dict[str, float], design: Design,
               what: str = "group pairs") -> Allocation:
    """Neyman's allocation of as many rated pairs as there are now across the group pairs (analysis.
    allocation), from each stratum's rectifier spread on its rated pairs (a stratum without one takes the
    median of the others'), with `more`: the pairs each stratum is short of it, and `variance_ratio`:
    its stratified variance over a proportional allocation's. sizes: group -> (pairs judged, pairs rated)."""
    if design.chosen_by_judge:
        return Allocation.of(pairs=None, reason=f"an allocation across {what} is for uniform draws")
    names = sorted(sizes)
    total = sum(sizes[g][1] for g in names)
    if not spreads or len(names) < 2:
        return Allocation.of(pairs=None, reason=f"needs 2 {what} or more, one with PPI's spread (2 rated pairs and "
                             "1 left to the judge)")
    fallback = float(np.median(list(spreads.values())))
    shares = np.array([sizes[g][0] for g in names], float)
    sigma = np.array([spreads.get(g, fallback) for g in names])
    try:
        pairs = neyman_allocation(shares / shares.sum(), sigma, total, np.array([sizes[g][0] for g in names]))
    except ValueError:
        return Allocation.of(pairs=None, reason=f"{total} rated pair(s) cannot give each of the {len(names)} {what} "
                             "the 2 PPI needs")
    return Allocation.of(total=total, pairs=dict(zip(names, map(int, pairs))),
                         more={g: max(0, int(p) - sizes[g][1]) for g, p in zip(names, pairs)},
                         spread=dict(zip(names, map(float, sigma))),
                         estimated_from_others=sorted(set(names) - set(spreads)),
                         variance_ratio=variance_ratio(shares / shares.sum(), sigma))


def rater_group_allocation(ratings: pd.DataFrame, judge: pd.Series, column: str, groups: dict[str, Judge],
                           design: Design) -> Allocation:
    """How many pairs each rater group (the values of `column`, e.g. rater_gender) should rate to compare
    the groups' H, from as many as they rate now: the variance of the groups' differences, Σ σ_g² / n_g,
    is least for n_g ∝ σ_g (Neyman's allocation with equal shares), σ_g the spread of the group's PPI
    rectifier y − λ_g f on the pairs it rated (λ_g from groups[g].ppi). `variance_ratio`: against an
    equal split. Any group can rate every judged pair."""
    judge = judge.dropna()
    counts, spreads = {}, {}
    for name, numbers in groups.items():
        paired = jv.paired(human_scores(ratings[ratings[column].astype(object) == name]), judge)
        counts[name] = (len(judge), len(paired))
        spread = rectifier_spread(paired, numbers.ppi)
        if spread is not None:
            spreads[name] = spread
    return allocation(counts, spreads, design, what="rater groups")


def stratified(parts: list[tuple[int, Ppi]], design: Design) -> Stratified:
    if design.escalate:
        return Stratified.of(value=None, ci=None, reason=REASON)
    if design.per_pair_chances:
        return Stratified.of(value=None, ci=None, reason="an active sample's chances would weight each stratum; "
                             "use harm.ppi, which weights by them")
    total = sum(n for n, _ in parts)
    missing = [e for n, e in parts if n and e.value is None]
    if not total or missing:
        return Stratified.of(value=None, ci=None, reason="each group pair needs at least 2 pairs rated by people "
                             "and 1 pair left to the judge alone; the table by group pair says which ones fall short")
    value, variance = 0.0, 0.0
    for n, e in parts:
        w = n / total
        # the stratum's own se: one read back from its interval is too small once the interval is cut to [−1, 1]
        # (no stratum here lacks a value, and one without se has an interval: see `missing` above)
        se = e.se if e.se else cast(float, cast(Interval, e.ci).width) / (2 * Z95)
        value += w * cast(float, e.value)
        variance += (w * se) ** 2
    half = Z95 * math.sqrt(variance)
    out = {"value": float(value), "ci": inside((value - half, value + half), -1.0, 1.0),
           "strata": len(parts), "n_pairs": total}
    few = [e.valid for _, e in parts if e.valid == FEW_PAIRS]
    return Stratified.of(**out, valid=few[0]) if few else Stratified.of(**out)   # a stratum's normal interval from few pairs
