"""How to spread people's pairs across strata (Fisch et al., "Stratified Prediction-Powered Inference for
Hybrid Language Model Evaluation", NeurIPS 2024, §4: the allocation that minimises the stratified
estimate's variance). With stratum k's share w_k of all pairs and σ_k the spread of its PPI rectifier
Y − λ_k f over rated pairs, the stratified variance is Σ w_k² σ_k² / n_k (plus terms that do not depend on
n_k), least for n_k ∝ w_k σ_k: Neyman's allocation. Against rating each stratum in proportion to its share
(what a uniform draw does on average), the variance is (Σ w_k σ_k)² / Σ w_k σ_k² as large."""
from __future__ import annotations

import numpy as np


def neyman_allocation(shares: np.ndarray, spreads: np.ndarray, total: int, available: np.ndarray,
                      minimum: int = 2) -> np.ndarray:
    """Whole numbers of pairs per stratum summing to `total` (at most Σ available), ∝ shares × spreads,
    none above its stratum's `available` pairs and none below min(minimum, available): PPI within a
    stratum needs 2 rated pairs. Rounding by largest remainder."""
    w, s, cap = (np.asarray(a, float) for a in (shares, spreads, available))
    total = int(min(total, cap.sum()))
    floor = np.minimum(minimum, cap)
    if floor.sum() > total:
        raise ValueError(f"{total} pairs cannot give each of {len(w)} strata its {minimum}")
    weight = w * s if (w * s).sum() > 0 else w          # no spread anywhere: in proportion to the shares
    # minimising Σ w²σ²/n_k within the bounds gives n_k = clip(c w_k σ_k, floor_k, cap_k) (its KKT
    # conditions); Σ n_k grows with c, so c is found by bisection
    low, high = 0.0, 1.0
    while np.clip(high * weight, floor, cap).sum() < total:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if np.clip(middle * weight, floor, cap).sum() < total else (low, middle)
    n = np.clip(high * weight, floor, cap)
    free = (n > floor) & (n < cap)
    whole = np.floor(n)
    short = total - int(whole.sum())
    room = np.flatnonzero(free & (whole < cap))
    order = room[np.argsort(-(n - whole)[room], kind="stable")]
    whole[order[:short]] += 1
    return whole.astype(int)


def variance_ratio(shares: np.ndarray, spreads: np.ndarray) -> float | None:
    """Neyman's stratified variance over proportional allocation's, for the same total: ≤ 1."""
    w, s = np.asarray(shares, float), np.asarray(spreads, float)
    proportional = float((w * s ** 2).sum())
    return None if proportional <= 0 else float((w * s).sum() ** 2 / proportional)
