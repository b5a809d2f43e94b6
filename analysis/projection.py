"""How many observations an anytime interval needs to reach a target width if their spread stays as it is
(`more_pairs`, `more_judgments`): its width projected at each n as analysis.sequential.anytime_running
computes the interval: the betting part with its bets sized as they are and its share of alpha, the
asymptotic part from where it is used (ASYMPTOTIC_FROM, or later where a burn-in holds it back: the adaptive
design's, analysis.running_adaptive.trusted_pairs), within the betting part's interval. Projected from the
asymptotic part's first use alone, a study whose asymptotic part waits for its burn-in was told it would
reach the width, or had reached it, while only the betting part, far wider, was in force (issue 53)."""
from __future__ import annotations

import math

import numpy as np
from scipy.special import digamma

from fairval.analysis.sequential import ALPHA, ASYMPTOTIC_FROM, BET_CAP, GRID, mixture_margin


def _eb_width(sd: float, n: int, *, planned: int | None, alpha: float) -> float:
    """The full width, on the unit scale, that the empirical-Bernstein sequence with the betting sequence's
    bets (WSR Theorem 2) would have after n observations whose spread stays sd: the betting sequence is
    at least about as narrow."""
    var = max(sd, 1e-3) ** 2
    if planned:                             # every bet the same: the sums in closed form (n may be large)
        lam1 = min(math.sqrt(2 * math.log(2 / alpha) / (var * planned)), BET_CAP)
        return 2 * (math.log(2 / alpha) + n * var * (-math.log1p(-lam1) - lam1)) / (n * lam1)
    t = np.arange(1, n + 1)
    scale = np.full(n, float(planned)) if planned else t * np.log1p(t)
    lam = np.minimum(np.sqrt(2 * math.log(2 / alpha) / (var * scale)), BET_CAP)
    spend = var * (-np.log1p(-lam) - lam)               # v_i ψ_E(λ_i) with v_i = 4σ²
    return float(2 * (math.log(2 / alpha) + spend.sum()) / lam.sum())


def _finite_weight(n: int, population: int) -> float:
    """W_n = Σ_{i≤n} N / (N − i + 1) = N (H_N − H_{N−n}): the without-replacement centre's weight."""
    return float(population * (digamma(population + 1) - digamma(population - n + 1)))


def _betting_width(sd: float, n: int, *, planned: int | None, alpha: float, population: int | None) -> float:
    width = _eb_width(sd, max(n, 1), planned=planned, alpha=alpha)
    if population is not None and n >= population:      # every pair drawn: only means within 1/N survive
        width = min(width, 1 / population + 2 / (GRID - 1))
    return width


def projected_width(sd: float, n: int, *, planned: int | None = None, alpha: float = ALPHA,
                    population: int | None = None, asymptotic_from: int | None = ASYMPTOTIC_FROM,
                    bets_for: int | None = None, betting_throughout: bool = False) -> float:
    """The full width, on the unit scale, after n observations whose spread (on the unit scale) stays sd:
    the betting part's (its empirical-Bernstein projection, bets sized for `bets_for`, else for `planned`)
    below `asymptotic_from` (at every n where it is None); from there the asymptotic sequence's
    2 σ n m_n / W_n (tuned to `planned`; W_n = n, or the without-replacement weight for a sample of a set
    of `population`) within the betting part's: its last interval before `asymptotic_from`, or, where it
    runs at every n (betting_throughout), its own at n. `alpha`: each part's."""
    bets = bets_for or planned
    if asymptotic_from is None or n < asymptotic_from:
        return _betting_width(sd, n, planned=bets, alpha=alpha, population=population)
    head = n if betting_throughout else asymptotic_from - 1
    betting = _betting_width(sd, head, planned=bets, alpha=alpha, population=population)
    weight = n if population is None else _finite_weight(min(n, population), population)
    margin = float(mixture_margin(n, max(sd, 1e-3) ** 2, planned=planned or n, alpha=alpha))
    return min(2 * n * margin / weight, betting)


def observations_needed(sd: float, target_width: float, *, now: int, planned: int | None = None,
                        alpha: float = ALPHA, limit: int = 1_000_000, population: int | None = None,
                        asymptotic_from: int | None = ASYMPTOTIC_FROM, bets_for: int | None = None,
                        betting_throughout: bool = False) -> int | None:
    """The number of observations at which projected_width (the same arguments) falls to target_width
    (both on the unit scale); None when it would take more than `limit` (or than the set holds)."""
    if population is not None:
        limit = min(limit, population)

    def width(n: int) -> float:
        return projected_width(sd, n, planned=planned, alpha=alpha, population=population,
                               asymptotic_from=asymptotic_from, bets_for=bets_for,
                               betting_throughout=betting_throughout)
    if width(limit) > target_width:
        return None
    low, high = max(now, 1), limit
    if width(low) <= target_width:
        return low
    while high - low > 1:                   # the projected width falls as n grows (each part does)
        mid = (low + high) // 2
        low, high = (mid, high) if width(mid) > target_width else (low, mid)
    return high
