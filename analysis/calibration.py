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


@dataclass(frozen=True, slots=True)
class Rate:
    value: float | None
    n_items: int


def human_scores(ratings: pd.DataFrame) -> pd.Series:
    """Per item, the mean canonical score over its raters (columns item_id, canonical)."""
    if ratings.empty:
        return pd.Series(dtype=float, name="human")
    score = as_numbers(ratings["canonical"])
    return score.groupby(ratings["item_id"]).mean().rename("human")


def sign_agreement(human: pd.Series, lmra: pd.Series) -> float | None:
    """Share of items where sign(human) == sign(lmra), with sign(0) = 0."""
    if len(human) == 0:
        return None
    return float((np.sign(human.to_numpy()) == np.sign(lmra.to_numpy())).mean())


def calibrate(human: pd.Series, lmra: pd.Series) -> Calibration:
    """Pearson r (95% interval, p) and sign agreement over the items both sides scored."""
    joined = pd.concat([human.rename("human"), lmra.rename("lmra")], axis=1, join="inner").dropna()
    n = len(joined)
    agree = sign_agreement(joined["human"], joined["lmra"])
    if n < 3:
        return Calibration(None, None, None, agree, n, f"only {n} item(s) scored by both humans and "
                           "the LMRA; a correlation needs at least 3")
    for side in ("human", "lmra"):
        if joined[side].nunique() < 2:
            return Calibration(None, None, None, agree, n, f"every {side} score is the same; the "
                               "correlation is undefined without variation")
    result = stats.pearsonr(joined["human"], joined["lmra"])
    ci = None
    if abs(result.statistic) > 1 - 1e-12:       # Fisher's z has no interval at ±1 (it would have no width)
        return Calibration(float(result.statistic), None, float(result.pvalue), agree, n,
                           "a perfect correlation in the sample: Fisher's z has no interval at ±1")
    if n > 3:
        low, high = result.confidence_interval(0.95)
        ci = (float(low), float(high))
    return Calibration(float(result.statistic), ci, float(result.pvalue), agree, n)


def calibrate_by_group(ratings: pd.DataFrame, lmra: pd.Series, column: str) -> dict[str, Calibration]:
    """Calibration with human scores from one rater group at a time (e.g. female raters only)."""
    out = {}
    for group, part in ratings.dropna(subset=[column]).groupby(column, sort=True):
        out[str(group)] = calibrate(human_scores(part), lmra)
    return out


def harm_rate(scores: pd.Series) -> Rate:
    """H(A, B): the mean over items of the per-item score (stereotype minus reverse)."""
    scores = scores.dropna()
    return Rate(float(scores.mean()) if len(scores) else None, len(scores))


def holm(p_values: list[float | None]) -> list[float | None]:
    """Holm's step-down adjustment of several groups' p-values (None stays None)."""
    known = sorted((p, k) for k, p in enumerate(p_values) if p is not None)
    out: list[float | None] = [None] * len(p_values)
    running, m = 0.0, len(known)
    for rank, (p, k) in enumerate(known):
        running = max(running, min(1.0, (m - rank) * p))
        out[k] = running
    return out
