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

import numpy as np

from fairval.analysis.judge_validity import Z95, estimate


def ppi_mean(human: np.ndarray, judge_labelled: np.ndarray, judge_unlabelled: np.ndarray) -> dict:
    """human and judge_labelled: the same pairs, in the same order; judge_unlabelled: the pairs only the
    judge scored. Returns value, ci, lambda, n_labelled, n_unlabelled (or a reason)."""
    y, f, f_u = (np.asarray(a, float) for a in (human, judge_labelled, judge_unlabelled))
    n, big_n = len(y), len(f_u)
    out = {"value": None, "ci": None, "lambda": None, "n_labelled": n, "n_unlabelled": big_n}
    if n < 2 or big_n < 1:
        out["reason"] = (f"{n} pair(s) with human ratings and judge scores and {big_n} with judge scores only; "
                         "prediction-powered inference needs at least 2 and 1")
        return out
    everything = np.concatenate([f, f_u])
    spread = everything.var(ddof=1)
    covariance = ((y - y.mean()) * (f - f.mean())).mean()
    lam = 0.0 if spread == 0 else float(np.clip(covariance / ((1 + n / big_n) * spread), 0, 1))
    value = lam * f_u.mean() + (y - lam * f).mean()
    se = math.sqrt((lam * f_u).std() ** 2 / big_n + (y - lam * f).std() ** 2 / n)
    return {**out, "value": float(value), "ci": [float(value - Z95 * se), float(value + Z95 * se)],
            "lambda": lam}


def classical_mean(values: np.ndarray) -> dict:
    """A mean with its normal 95% interval (standard error with n − 1)."""
    v = np.asarray(values, float)
    if len(v) < 2:
        return estimate(v.mean() if len(v) else None, None, len(v))
    se = v.std(ddof=1) / math.sqrt(len(v))
    return estimate(v.mean(), (v.mean() - Z95 * se, v.mean() + Z95 * se), len(v))
