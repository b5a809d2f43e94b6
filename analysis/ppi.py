"""Prediction-powered inference for a mean (PPI++, Angelopoulos, Duchi and Zrnic 2023): H from a human
sample and the judge's scores on every pair, never biased by the judge, narrower when the judge is good.

As ppi_py's `ppi_mean_pointestimate` and `ppi_mean_ci` compute it with the power-tuned λ:
    λ = cov(Y, f | labelled) / ((1 + n/N) · var(f | all pairs)), clipped to [0, 1]
        (the covariance with divisor n, the variance of labelled and unlabelled scores together with n − 1)
    θ = λ · mean(f | unlabelled) + mean(Y − λ f | labelled)
    se² = var(λ f | unlabelled) / N + var(Y − λ f | labelled) / n   (divisor N and n)
and a normal 95% interval. Y is a pair's human score, f the judge's score.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from fairval.analysis.judge_validity import SMALL_N, Z95, Measure, betting_interval, estimate, inside, no_spread_interval
from fairval.analysis.reasons import Why, because


def ppi_mean(human: np.ndarray, judge_labelled: np.ndarray, judge_unlabelled: np.ndarray,
             bounds: tuple[float, float] = (-1.0, 1.0)) -> dict[str, Any]:
    """human and judge_labelled: the same pairs, in the same order; judge_unlabelled: the pairs only the
    judge scored; every score in `bounds`. Returns value, ci, lambda, se (before the interval is cut to
    `bounds`), n_labelled, n_unlabelled (or a reason). The interval is cut to `bounds`; with no spread at
    all, see bounded_interval."""
    y, f, f_u = (np.asarray(a, float) for a in (human, judge_labelled, judge_unlabelled))
    n, big_n = len(y), len(f_u)
    out: dict[str, Any] = {"value": None, "ci": None, "lambda": None, "n_labelled": n, "n_unlabelled": big_n}
    if n < 2 or big_n < 1:
        out["reason"] = because(Why.FEW_FOR_PPI, n=n, unlabelled=big_n)
        return out
    everything = np.concatenate([f, f_u])
    spread = everything.var(ddof=1)
    covariance = ((y - y.mean()) * (f - f.mean())).mean()
    lam = 0.0 if spread == 0 else float(np.clip(covariance / ((1 + n / big_n) * spread), 0, 1))
    value = lam * f_u.mean() + (y - lam * f).mean()
    se = math.sqrt((lam * f_u).std() ** 2 / big_n + (y - lam * f).std() ** 2 / n)
    return with_validity({**out, "value": float(value), "ci": list(bounded_interval(value, se, n, bounds)), "lambda": lam,
                          "se": se if se > NO_SPREAD else None})        # None: the interval is no_spread_interval's


NO_SPREAD = 1e-12           # a standard error at most this is rounding, not spread: scores lie in [−1, 1]
FEW_PAIRS = ("approximate (a normal interval): with fewer than 30 rated pairs it may cover well under 95% "
             "(PPI++ on a uniform sample, in simulated studies: 76–94% of the time with 5–20 pairs, 92–97% from 30)")


def with_validity(result: dict[str, Any]) -> dict[str, Any]:
    """A normal interval from fewer than SMALL_N rated pairs says what it is worth (`valid`)."""
    if result.get("ci") is not None and result["n_labelled"] < SMALL_N and "valid" not in result:
        return {**result, "valid": FEW_PAIRS}
    return result


def bounded_interval(value: float, se: float, n: int, bounds: tuple[float, float]) -> tuple[float, float]:
    """value ± z·se cut to bounds; when the data show no spread at all (se = 0, every pair the same),
    no_spread_interval over the n observations instead of an interval of zero width. "No spread" allows
    for rounding: n copies of a score such as 1/3 or −0.03 can have a standard deviation of 1e-17."""
    if se <= NO_SPREAD:
        return no_spread_interval(value, n, *bounds)
    return inside((float(value - Z95 * se), float(value + Z95 * se)), *bounds)


def classical_mean(values: np.ndarray, bounds: tuple[float, float] = (-1.0, 1.0)) -> Measure:
    """A mean of values in `bounds` with its normal 95% interval (standard error with n − 1), cut to them;
    below SMALL_N values, the betting interval, valid at every n."""
    v = np.asarray(values, float)
    if len(v) < 2:
        return estimate(v.mean() if len(v) else None, None, len(v))
    if len(v) < SMALL_N:
        return estimate(v.mean(), betting_interval(v, bounds), len(v))
    return estimate(v.mean(), bounded_interval(v.mean(), v.std(ddof=1) / math.sqrt(len(v)), len(v), bounds), len(v))
