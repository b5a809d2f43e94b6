"""Anytime-valid intervals: asymptotic confidence sequences (Waudby-Smith, Arbour, Sinha, Kennedy and
Ramdas, "Time-uniform central limit theory and asymptotic confidence sequences", 2024).

For terms x_1, x_2, … with a common mean, the running mean ± sd_t · m(t) with the normal-mixture margin
    m(t) = √( 2 (t ρ² + 1) / (t² ρ²) · log( √(t ρ² + 1) / α ) )
covers the mean at every t at once with probability → 1 − α, however often it is looked at and
whenever the looking stops. ρ² = (−W₋₁(−α² / e) − 1) / t_opt makes it tightest at t_opt (their eq. for
the optimal ρ; W₋₁ the lower branch of Lambert's W). A fixed-n interval looked at after every judgment
and stopped when narrow enough covers far less often (bench/active.py shows both).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import lambertw

ALPHA = 0.05


def best_rho2(t_opt: float, alpha: float = ALPHA) -> float:
    """The ρ² whose margin is smallest at t_opt."""
    return float((-lambertw(-alpha ** 2 / math.e, k=-1).real - 1) / t_opt)


def margin(t: np.ndarray | float, rho2: float, alpha: float = ALPHA) -> np.ndarray | float:
    """The unit-variance margin m(t)."""
    t = np.asarray(t, float)
    return np.sqrt(2 * (t * rho2 + 1) / (t ** 2 * rho2) * np.log(np.sqrt(t * rho2 + 1) / alpha))


def confidence_sequence(terms: np.ndarray, *, t_opt: float, alpha: float = ALPHA) -> dict:
    """The interval at the last of `terms` (in the order they arrived), with n and the running sd."""
    x = np.asarray(terms, float)
    t = len(x)
    if t < 2:
        return {"value": None, "ci": None, "n": t, "sd": None,
                "reason": f"{t} term(s); an anytime-valid interval needs at least 2"}
    sd = float(x.std(ddof=1))
    half = sd * float(margin(t, best_rho2(t_opt, alpha), alpha))
    mean = float(x.mean())
    return {"value": mean, "ci": [mean - half, mean + half], "n": t, "sd": sd}


def running_intervals(terms: np.ndarray, *, t_opt: float, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """(mean, half-width) after each term, for a study looked at after every judgment (t ≥ 2)."""
    x = np.asarray(terms, float)
    t = np.arange(1, len(x) + 1)
    mean = np.cumsum(x) / t
    square = np.cumsum(x * x)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.where(t > 1, (square - t * mean ** 2) / np.maximum(t - 1, 1), np.nan)
        half = np.sqrt(np.clip(var, 0, None)) * margin(t, best_rho2(t_opt, alpha), alpha)
    return mean, half


def terms_needed(sd: float, target_width: float, *, t_opt: float, now: int, alpha: float = ALPHA,
                 limit: int = 10_000_000) -> int | None:
    """The number of terms at which the interval's full width falls to target_width if the spread stays
    sd (None when it would take more than `limit`)."""
    if sd <= 0:
        return now
    rho2 = best_rho2(t_opt, alpha)
    if 2 * sd * float(margin(limit, rho2, alpha)) > target_width:
        return None
    low, high = max(now, 2), limit
    if 2 * sd * float(margin(low, rho2, alpha)) <= target_width:
        return low
    while high - low > 1:                   # the margin falls with t beyond its first few terms
        mid = (low + high) // 2
        low, high = (mid, high) if 2 * sd * float(margin(mid, rho2, alpha)) > target_width else (low, mid)
    return high
