"""LMRA–human calibration (004 Table 1, Fig. 6) and the harmful-stereotype rate H (004 eq. 1)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from fairval.analysis.scores import as_numbers


@dataclass(frozen=True, slots=True)
class Calibration:
    pearson_r: float | None
    pearson_ci: tuple[float, float] | None
    p_value: float | None
    sign_agreement: float | None
    n_items: int
    reason: str | None = None
    n_human_zero: int = 0            # items whose human mean is exactly 0: left out of sign agreement


@dataclass(frozen=True, slots=True)
class HarmRate:
    value: float | None
    n_items: int


def human_scores(ratings: pd.DataFrame) -> pd.Series:
    """Per item, the mean canonical score over its raters (columns item_id, canonical)."""
    if ratings.empty:
        return pd.Series(dtype=float, name="human")
    score = as_numbers(ratings["canonical"])
    return score.groupby(ratings["item_id"]).mean().rename("human")


def sign_agreement(human: pd.Series, lmra: pd.Series) -> float | None:
    """Share of items where sign(human) == sign(lmra), over the items whose human mean is not 0.

    A human mean of exactly 0 (people split evenly between the two directions, or all answering neither)
    names no direction to agree with, and a judge's score from probabilities is almost never exactly 0:
    counting those items as disagreeing made a judge with r 0.51 show a sign agreement of 0.29 (issue 53).
    They are left out and counted (Calibration.n_human_zero); a judge at 0 where people have a direction
    disagrees."""
    directed = human.to_numpy() != 0
    if not directed.any():
        return None
    return float((np.sign(human.to_numpy()[directed]) == np.sign(lmra.to_numpy()[directed])).mean())


def calibrate(human: pd.Series, lmra: pd.Series) -> Calibration:
    """Pearson r (95% interval, p) and sign agreement over the items both sides scored."""
    joined = pd.concat([human.rename("human"), lmra.rename("lmra")], axis=1, join="inner").dropna()
    n = len(joined)
    agree = sign_agreement(joined["human"], joined["lmra"])
    zero = int((joined["human"] == 0).sum())
    if n < 3:
        return Calibration(None, None, None, agree, n, f"only {n} item(s) scored by both humans and "
                           "the LMRA; a correlation needs at least 3", zero)
    for side in ("human", "lmra"):
        if joined[side].nunique() < 2:
            return Calibration(None, None, None, agree, n, f"every {side} score is the same; the "
                               "correlation is undefined without variation", zero)
    result = stats.pearsonr(joined["human"], joined["lmra"])
    ci = None
    if abs(result.statistic) > 1 - 1e-12:       # Fisher's z has no interval at ±1 (it would have no width)
        return Calibration(float(result.statistic), None, float(result.pvalue), agree, n,
                           "a perfect correlation in the sample: Fisher's z has no interval at ±1", zero)
    if n > 3:
        low, high = result.confidence_interval(0.95)
        ci = (float(low), float(high))
    return Calibration(float(result.statistic), ci, float(result.pvalue), agree, n, n_human_zero=zero)


def calibrate_by_group(ratings: pd.DataFrame, lmra: pd.Series, column: str) -> dict[str, Calibration]:
    """Calibration with human scores from one rater group at a time (e.g. female raters only)."""
    out = {}
    for group, part in ratings.dropna(subset=[column]).groupby(column, sort=True):
        out[str(group)] = calibrate(human_scores(part), lmra)
    return out


def harm_rate(scores: pd.Series) -> HarmRate:
    """H(A, B): the mean over items of the per-item score (stereotype minus reverse)."""
    scores = scores.dropna()
    return HarmRate(float(scores.mean()) if len(scores) else None, len(scores))


def holm(p_values: list[float | None]) -> list[float | None]:
    """Holm's step-down adjustment of several groups' p-values (None stays None)."""
    known = sorted((p, k) for k, p in enumerate(p_values) if p is not None)
    out: list[float | None] = [None] * len(p_values)
    running, m = 0.0, len(known)
    for rank, (p, k) in enumerate(known):
        running = max(running, min(1.0, (m - rank) * p))
        out[k] = running
    return out
