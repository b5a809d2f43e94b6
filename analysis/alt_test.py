"""The alternative-annotator test (Calderon, Reichart and Dror, ACL 2025): may the judge replace a rater?

For each rater j, on the items j rated that others rated too, the judge f and j are each compared with
the other raters' answers H_−j: on scores S = −|answer − mean(H_−j)|, on labels S = the share of H_−j
giving the same label. W^f = 1[S_f ≥ S_j], W^h = 1[S_j ≥ S_f] (a tie counts for both). The null "j is
better than the judge by at least ε" (mean(W^h − W^f) ≥ ε) is tested one-sided with a paired t-test,
and the p-values of all raters corrected by Benjamini–Yekutieli at q. The winning rate ω is the share
of raters whose null is rejected (the judge passes when ω ≥ 0.5); the advantage probability ρ is the
mean over raters of mean(W^f).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from fairval.analysis.reasons import Reason, Why, because

MIN_RATERS = 3


@dataclass(frozen=True)
class RaterContest:
    """One rater kept against the judge: their items, the judge's advantage probability, p and its
    Benjamini–Yekutieli adjustment, and whether the judge won."""
    rater_id: str
    n_items: int
    rho_judge: float
    p: float
    p_by: float
    judge_wins: bool


@dataclass(frozen=True)
class AltTestResult:
    """The alternative-annotator test (see the module's docstring), or why it has no answer."""
    epsilon: float
    q: float
    min_items: int
    winning_rate: float | None
    advantage_probability: float | None
    passed: bool | None
    n_raters: int
    n_raters_left_out: int
    raters: tuple[RaterContest, ...] = ()
    reason: Reason | None = None


def alt_test(ratings: pd.DataFrame, judge: pd.Series, *, epsilon: float = 0.1, q: float = 0.05,
             min_items: int = 30, labels: bool = False) -> AltTestResult:
    """ratings: item_id, rater_id, answer (a score, or a label when labels=True). judge: item -> answer."""
    frame = ratings.dropna(subset=["answer"])
    frame = frame[frame["item_id"].isin(judge.dropna().index)].copy()
    frame["judge"] = frame["item_id"].map(judge)
    frame["others"] = frame.groupby("item_id")["rater_id"].transform("size") - 1
    frame = frame[frame["others"] >= 1]
    if labels:
        same = frame.groupby(["item_id", "answer"])["rater_id"].transform("size") - 1
        match = (frame["answer"] == frame["judge"]).astype(int)
        judge_hits = match.groupby(frame["item_id"]).transform("sum") - match      # the others only
        s_rater, s_judge = same / frame["others"], judge_hits / frame["others"]
    else:
        answer = frame["answer"].astype(float)
        total = answer.groupby(frame["item_id"]).transform("sum")
        others_mean = (total - answer) / frame["others"]
        s_rater = -(answer - others_mean).abs()
        s_judge = -(frame["judge"].astype(float) - others_mean).abs()
    frame["w_judge"] = (s_judge >= s_rater).astype(float)
    frame["w_rater"] = (s_rater >= s_judge).astype(float)
    per_rater = frame.groupby("rater_id").agg(n=("item_id", "size"), rho_f=("w_judge", "mean"))
    kept = per_rater[per_rater["n"] >= min_items]
    if len(kept) < MIN_RATERS:
        return AltTestResult(epsilon, q, min_items, None, None, None, len(kept), len(per_rater) - len(kept),
                             reason=because(Why.FEW_RATERS_FOR_ALT_TEST, n=len(kept), min_items=min_items,
                                            minimum=MIN_RATERS))
    frame["d"] = frame["w_rater"] - frame["w_judge"]
    d = frame[frame["rater_id"].isin(kept.index)].groupby("rater_id")["d"].agg(["mean", "std", "size"])
    p_values = _p_less(d.loc[kept.index], epsilon)
    adjusted = stats.false_discovery_control(p_values, method="by")
    rejected = adjusted <= q
    return AltTestResult(epsilon, q, min_items, float(rejected.mean()), float(kept["rho_f"].mean()),
                         bool(rejected.mean() >= 0.5), len(kept), len(per_rater) - len(kept),
                         tuple(RaterContest(str(r), int(n), float(rho), float(p), float(a), bool(w))
                               for r, n, rho, p, a, w in zip(kept.index, kept["n"], kept["rho_f"], p_values,
                                                             adjusted, rejected)))


def _p_less(d: pd.DataFrame, epsilon: float) -> np.ndarray:
    """Per rater, the one-sided paired t-test of mean(d) < epsilon (columns mean, std, size), all raters
    at once. With no spread the answer is certain either way."""
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (d["mean"] - epsilon) / (d["std"] / np.sqrt(d["size"]))
    p = stats.t.cdf(t.to_numpy(float), (d["size"] - 1).to_numpy(float))
    flat = d["std"].fillna(0).to_numpy() == 0
    return np.where(flat, np.where(d["mean"].to_numpy() < epsilon, 0.0, 1.0), p)
