"""H and sign agreement under the live adaptive design (annotate.adaptive.next_pair): the decided pairs in
decision order, each weighted by 1/its chance when it went to people (analysis.active.adaptive_terms),
over the longest prefix of the order whose kept pairs are all complete, so pairs still being rated
never bias it. The anytime interval (analysis.sequential.anytime_running) bets on each term within its
own bounds at every decided pair, within the asymptotic sequence once it is trusted (analysis.running_adaptive.
trusted_pairs: a burn-in in complete pairs); the fixed-n
interval is the martingale CLT's normal one over the same terms."""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from fairval.analysis.active import adaptive_terms, envelope_reach, lowest_chance
from fairval.analysis.guarantees import guarantee
from fairval.analysis.ppi import bounded_interval, classical_mean, validity
from fairval.analysis.projection import observations_needed
from fairval.analysis.reasons import Why, because
from fairval.analysis.running_adaptive import (
    BURN_IN_WORDS,
    INTERSECT,
    tame_intersection,
    tame_least,
    trusted_from,
    trusted_pairs,
)
from fairval.analysis.sequential import ALPHA, ASYMPTOTIC_FROM, anytime_running, split_alpha
from fairval.analysis.shapes import AdaptiveTerms
from fairval.annotate.results.blocks import Anytime, Estimate, Ppi
from fairval.annotate.results.judge import directed_share

GROUP_VALID = ("a normal interval (the martingale central limit theorem), approximate: in simulated studies it "
               "covered a group's H 93–98% of the time with about 35 rated pairs in the group, 89–98% with 12")
TYPICAL_SPAN = 4.0          # a term of a pair certain to go to people: y − λ f within ±2


def decided_prefix(decisions: pd.DataFrame, completed: pd.DataFrame) -> pd.DataFrame:
    """The decided pairs up to the first kept one not complete yet, with `human` (its complete mean)."""
    decided = decisions[decisions["decided_at"].notna()].sort_values("decision_order")
    human = completed["human"].reindex(decided["item_id"]).to_numpy(float)
    waiting = np.flatnonzero(decided["kept"].to_numpy(bool) & np.isnan(human))
    end = int(waiting[0]) if len(waiting) else len(decided)
    return decided.iloc[:end].assign(human=human[:end])


def adaptive_ppi(human: pd.Series, judge: pd.Series, sample: dict, decisions: pd.DataFrame,
                 completed: pd.DataFrame, *, target_width: float | None, raters_per_item: int) -> Ppi:
    """The `ppi` block for an adaptive study: value and fixed-n ci, and `cs`, the anytime interval."""
    judge = judge.dropna()
    pool = judge.reindex(decisions["item_id"])
    m = float(pool.mean()) if pool.notna().all() and len(pool) else math.nan
    prefix = decided_prefix(decisions, completed)
    f = pool.reindex(prefix["item_id"]).to_numpy(float)
    kept = prefix["kept"].to_numpy(bool)
    out: dict[str, Any] = {"value": None, "ci": None, "lambda": None, "n_labelled": int(kept.sum()),
           "n_unlabelled": len(pool) - int(kept.sum()),
           "design": "adaptive", "human_only": Estimate.of_result(classical_mean(human.dropna().to_numpy())),
           "judge_only": Estimate.of_result(classical_mean(judge.to_numpy())), "sampling": sampling_text(sample, decisions)}
    if math.isnan(m) or kept.sum() < 2:
        reason = ("every pair of the design needs the judge's score" if math.isnan(m) else
                  f"{int(kept.sum())} complete pair(s) in the decided order; the estimate needs at least 2")
        return Ppi.of(**out, reason=reason, cs=Anytime.of(value=None, ci=None, n_pairs_complete=int(kept.sum()),
                                                           reason=reason))
    least = least_chances(prefix, sample)
    found = adaptive_terms(prefix["human"].to_numpy(float), f, prefix["chance"].to_numpy(float), kept, m, least)
    terms = found.terms
    value = float(terms.mean())
    out.update(value=value, ci=list(bounded_interval(value, float(terms.std(ddof=1)) / math.sqrt(len(terms)),
                                                     len(terms), (-1.0, 1.0))))
    if valid := validity(int(kept.sum())):
        out["valid"] = valid
    return Ppi.of(**out, cs=_anytime(found, least, m, sample, len(pool), int(kept.sum()), target_width, raters_per_item,
                                     kept=kept))


def adaptive_group_ppi(judge: pd.Series, decisions: pd.DataFrame, completed: pd.DataFrame,
                       groups: pd.Series) -> dict[str, Ppi]:
    """H per group of pairs (item → its group, known before any decision) under the adaptive design: the
    same terms with the group's judge mean m_g in place of m, averaged over the group's decided pairs in
    the prefix. The order is random within each group too, so each group's terms estimate its H as the
    study's estimate H; a fixed-n normal interval (the martingale CLT's), as a group's PPI has elsewhere."""
    judge = judge.dropna()
    pool = judge.reindex(decisions["item_id"])
    names = sorted(set(groups.reindex(decisions["item_id"]).dropna()))
    if pool.isna().any():
        return {g: Ppi.of(value=None, ci=None, design="adaptive",
                          reason="every pair of the design needs the judge's score") for g in names}
    means = pool.groupby(groups.reindex(decisions["item_id"]).to_numpy()).mean()
    prefix = decided_prefix(decisions, completed)
    group = groups.reindex(prefix["item_id"]).to_numpy()
    kept = prefix["kept"].to_numpy(bool)
    chance = prefix["chance"].to_numpy(float)       # as least too: a normal interval uses no term's bounds
    found = adaptive_terms(prefix["human"].to_numpy(float), pool.reindex(prefix["item_id"]).to_numpy(float),
                           chance, kept, means.reindex(group).to_numpy(float), chance)
    out = {}
    for name in names:
        mine = group == name
        terms, rated = found.terms[mine], int(kept[mine].sum())
        block: dict[str, Any] = {"value": None, "ci": None, "design": "adaptive", "n_labelled": rated,
                 "n_decided": int(mine.sum()), "valid": GROUP_VALID}
        if rated < 2:
            out[name] = Ppi.of(**block, reason=f"{rated} complete pair(s) of this group in the decided order; "
                               "the estimate needs at least 2")
            continue
        value = float(terms.mean())
        se = float(terms.std(ddof=1)) / math.sqrt(len(terms))
        out[name] = Ppi.of(**{**block, "value": value, "ci": bounded_interval(value, se, len(terms), (-1.0, 1.0))})
    return out


def adaptive_sign_cs(judge: pd.Series, decisions: pd.DataFrame, completed: pd.DataFrame, sample: dict) -> Anytime:
    """The share of agreeing signs among the pairs whose people's mean is not 0, anytime-valid: the ratio of
    two weighted shares (annotate.results.judge.directed_share), each decided pair's term ξ/π · agreement
    and ξ/π · (people's mean not 0) (no control variate), within [0, 1/π]."""
    prefix = decided_prefix(decisions, completed)
    kept = prefix["kept"].to_numpy(bool)
    if kept.sum() < 1:
        return Anytime.of(value=None, ci=None, n_pairs_complete=0, reason="no complete pair yet")
    f = judge.reindex(prefix["item_id"]).to_numpy(float)
    human = prefix["human"].to_numpy(float)
    direction = kept & (human != 0)
    hits = direction & (np.sign(human) == np.sign(f))

    def share(x: np.ndarray, quantity: str) -> Anytime:
        least = least_chances(prefix, sample)
        found = adaptive_terms(x.astype(float), np.zeros(len(x)), prefix["chance"].to_numpy(float), kept, 0.0, least)
        return _anytime(found, least, 0.0, sample, len(decisions), int(kept.sum()), None, 1, means=(0.0, 1.0),
                        quantity=quantity, alpha=split_alpha(), kept=kept)
    return directed_share(share(hits, "the share of pairs whose signs agree (people's mean not 0)"),
                          share(direction, "the share of pairs whose people's mean is not 0"),
                          int((kept & (human == 0)).sum()))


def least_chances(prefix: pd.DataFrame, sample: dict) -> np.ndarray:
    """Each decided pair's least chance of any pair then; for pairs decided before fairval kept it, the
    lowest chance the design allows (the lowest live floor's share of the uniform chance)."""
    return prefix["least"].fillna(lowest_chance(sample["budget"], sample["of"])).to_numpy(float)


def envelope(centre: float, budget: int, pairs: int) -> tuple[float, float]:
    """Bounds no term can leave, fixed before the study: no chance is below the lowest live floor's share
    of the uniform chance, so no term is further than 2 / that chance from the centre."""
    reach = envelope_reach(budget, pairs)
    return centre - reach, centre + reach


# Why no without-replacement form here (issue 45 (a), checked 2026-11-26). Waudby-Smith & Ramdas (2020) bet on
# x_t against the mean of the values not yet drawn, (N μ − Σ_{j<t} x_j) / (N − t + 1): that needs every earlier
# drawn value. Here the decided pairs are a uniform random prefix, π_t and λ_{t−1} predictable, and with
# V_j = λ_{j−1} f_j + (ξ_j/π_j)(y_j − λ_{j−1} f_j), E[V_t | past] = ȳ_rem,t = (N ȳ − Σ_{j<t} y_j)/(N − t + 1) holds,
# but y_j of a decided pair that did not go to people (ξ_j = 0) is never seen. Putting V_j in its place leaves
# A_t − ȳ W_t = Σ_{j≤t} [δ_j + e_j (1 + c_{j,t})], δ_j = y_j − ȳ_rem,j, e_j = V_j − y_j, c_{j,t} = Σ_{s=j+1..t} 1/(N − s + 1)
# (A_t, W_t: the centre's sums as sequential.step keeps them): the coefficient of each past e_j changes with t,
# so the sum is no martingale and the sequence's guarantee does not follow; the finite-population gain would
# only reach the between-pair part of the terms' variance anyway (the coin's and the raters' noise do not
# shrink as the set is used up). So the with-replacement sequence stays, for a superpopulation mean; over the
# study's own pairs it errs wide (the between-pair part of Σ(Z_t − H) is (N − t) Σ δ_s/(N − s), a bridge, whose
# Gaussian limit stays inside the mixture boundary g wherever g(s)/s falls), which is not a proof: `valid` says so.
SUPERPOPULATION = ("; for the study's own pairs only approximately: each term's mean, given the pairs "
                   "before it, is that of the pairs not yet decided, which the with-replacement form does not follow")


def _anytime(found: AdaptiveTerms, least: np.ndarray, centre: float, sample: dict, pairs: int, complete: int,
             target_width: float | None, raters_per_item: int, means: tuple[float, float] = (-1.0, 1.0), quantity: str = "H",
             alpha: float = ALPHA, *, kept: np.ndarray) -> Anytime:
    terms = found.terms
    lower, upper = envelope(centre, sample["budget"], pairs)
    reach = (upper - lower) / 2
    planned = design_planned(sample, pairs) if quantity == "H" else pairs
    tame = tame_least(sample["budget"], pairs)
    trusted = trusted_pairs(kept)           # issue 53: the asymptotic part only after its burn-in
    low, high = anytime_running(terms, lower=lower, upper=upper, planned=planned, steps=(found.lows, found.highs),
                                means=means, typical_span=TYPICAL_SPAN, intersect=INTERSECT, alpha=alpha, trusted=trusted)
    low, high = tame_intersection(low, high, least, tame=tame)
    out: dict[str, Any] = {"value": float(terms.mean()), "n_pairs_complete": complete, "n_decided": len(terms),
           "planned": planned,
           "method": "asymptotic" if trusted[-1] else "betting", "asymptotic_from": ASYMPTOTIC_FROM,
           "valid": guarantee(len(terms), quantity=quantity, note=SUPERPOPULATION, alpha=alpha, burn_in=BURN_IN_WORDS,
                              trusted=bool(trusted[-1]), order=(
               "pairs are decided in a seeded random order, each weighted by 1/its chance, set before its answer "
               "from the answers before it (Zrnic and Candès's sequential active inference terms)"))}
    if math.isnan(low[-1]) or low[-1] > high[-1]:
        return Anytime.of(**out, ci=None, reason=because(Why.RUNNING_EMPTY))
    out["ci"] = [max(float(low[-1]), means[0]), min(float(high[-1]), means[1])]
    if target_width is not None:
        span = 2 * reach
        sd = float(terms.std(ddof=1)) / span if len(terms) > 1 else 0.5
        share = sample["budget"] / pairs                    # the expected share of decided pairs kept
        # projected as the interval is computed (issue 53): the betting part alone, bets sized for ASYMPTOTIC_FROM,
        # until the burn-in is expected to end, within the asymptotic part from there; each with half of alpha
        needed = observations_needed(sd, target_width / span, now=len(terms), planned=planned, alpha=split_alpha(),
                                     asymptotic_from=trusted_from(kept, share), bets_for=ASYMPTOTIC_FROM,
                                     betting_throughout=True)
        more = None if needed is None else math.ceil((needed - len(terms)) * share)
        out.update(target_width=target_width, more_pairs=more,
                   more_judgments=None if more is None else more * raters_per_item)
    return Anytime.of(**out)


def design_planned(sample: dict, pairs: int) -> int:
    """The decided pairs H's asymptotic part is tuned to, as the design recorded them when it started
    (analysis.running_adaptive.planned_pairs); every pair for designs recorded before it kept them."""
    return int(sample.get("planned") or pairs)


def sampling_text(sample: dict, decisions: pd.DataFrame) -> str:
    decided = int(decisions["decided_at"].notna().sum())
    kept = int(decisions["kept"].sum())
    return (f"the adaptive design (`fairval study set … design=adaptive budget={sample['budget']}`): {decided:,} of "
            f"{sample['of']:,} pairs decided so far in a seeded random order (seed {sample['seed']}), {kept:,} of "
            f"them sent to people, each with a chance set from the uncertainty of judge {sample['judge']!r} and the answers "
            "before it; each rated pair is weighted by 1/its chance")

