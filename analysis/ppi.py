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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from fairval.analysis.interval import Interval
from fairval.analysis.judge_validity import SMALL_N, Z95, Measure, betting_interval, estimate, inside, no_spread_interval
from fairval.analysis.reasons import Reason, Why, because


@dataclass(frozen=True, slots=True)
class PpiEstimate:
    """A mean by PPI++ (`weighted`: by inverse-probability weights, analysis.active.active_ppi_mean): value and
    its interval, λ, the rated (labelled) and judge-only (unlabelled) pairs, or the reason it has none. `se`
    is the standard error before the interval is cut to its bounds (None where the interval is
    no_spread_interval's; the weighted estimate does not report one); `valid` what a normal interval from
    fewer than SMALL_N rated pairs is worth (the interval's guarantee too)."""
    value: float | None
    ci: Interval | None
    lambda_: float | None
    n_labelled: int
    n_unlabelled: int
    se: float | None = None
    valid: str | None = None
    reason: Reason | None = None
    weighted: bool = False

    def shown(self) -> dict[str, Any]:
        """Its numbers under the `ppi` block's keys, in the order `analyze --json` prints them: `se` where
        PPI++ computed one (null included), `valid` and `reason` only where there is one."""
        out: dict[str, Any] = {"value": self.value, "ci": self.ci, "lambda": self.lambda_,
                               "n_labelled": self.n_labelled, "n_unlabelled": self.n_unlabelled}
        if self.reason is None and not self.weighted:
            out["se"] = self.se
        if self.valid is not None:
            out["valid"] = self.valid
        if self.reason is not None:
            out["reason"] = self.reason
        return out


def ppi_estimate(value: float, ends: Sequence[float], n: int, unlabelled: int, lam: float, *,
                 se: float | None = None, weighted: bool = False) -> PpiEstimate:
    """The estimate with its interval; below SMALL_N rated pairs, the interval says what it is worth."""
    valid = validity(n)
    return PpiEstimate(float(value), Interval.of(ends, guarantee=valid), float(lam), n, unlabelled, se, valid,
                       weighted=weighted)


def ppi_mean(human: npt.ArrayLike, judge_labelled: npt.ArrayLike, judge_unlabelled: npt.ArrayLike,
             bounds: tuple[float, float] = (-1.0, 1.0)) -> PpiEstimate:
    """human and judge_labelled: the same pairs, in the same order; judge_unlabelled: the pairs only the
    judge scored; every score in `bounds`. The interval is cut to `bounds`; with no spread at all, see
    bounded_interval."""
    y, f, f_u = (np.asarray(a, float) for a in (human, judge_labelled, judge_unlabelled))
    n, big_n = len(y), len(f_u)
    if n < 2 or big_n < 1:
        return PpiEstimate(None, None, None, n, big_n, reason=because(Why.FEW_FOR_PPI, n=n, unlabelled=big_n))
    everything = np.concatenate([f, f_u])
    spread = everything.var(ddof=1)
    covariance = ((y - y.mean()) * (f - f.mean())).mean()
    lam = 0.0 if spread == 0 else float(np.clip(covariance / ((1 + n / big_n) * spread), 0, 1))
    value = lam * f_u.mean() + (y - lam * f).mean()
    se = math.sqrt((lam * f_u).std() ** 2 / big_n + (y - lam * f).std() ** 2 / n)
    return ppi_estimate(value, bounded_interval(value, se, n, bounds), n, big_n, lam,
                        se=se if se > NO_SPREAD else None)           # None: the interval is no_spread_interval's


NO_SPREAD = 1e-12           # a standard error at most this is rounding, not spread: scores lie in [−1, 1]
FEW_PAIRS = ("approximate (a normal interval): with fewer than 30 rated pairs it may cover well under 95% "
             "(PPI++ on a uniform sample, in simulated studies: 76–94% of the time with 5–20 pairs, 92–97% from 30)")


def validity(n_labelled: int) -> str | None:
    """What a normal interval from n_labelled rated pairs is worth, where that is less than 95% says."""
    return FEW_PAIRS if n_labelled < SMALL_N else None


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
