"""Inter-rater reliability: Krippendorff's alpha with a bootstrap interval over items.

The point estimate comes from the krippendorff package. The bootstrap resamples items: a
resample's coincidence matrix is the weighted sum of per-item coincidence matrices (weights: how
often each item was drawn), so all draws are one matrix product, and alpha follows from each
coincidence matrix as in the package (checked against it draw by draw in the tests).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import krippendorff
import numpy as np
import numpy.typing as npt
import pandas as pd

from fairval.analysis.reasons import Reason, Why, because

Level = Literal["nominal", "ordinal", "interval"]
Counts = npt.NDArray[np.float64]           # items × the domain's values (float: weighted sums of them follow)
DRAWS_PER_BLOCK = 64          # bootstrap draws per matrix product (bounds memory at ~64 × items)


@dataclass(frozen=True, slots=True)
class Reliability:
    alpha: float | None                       # None when undefined; `reason` says why
    level: Level
    interval: tuple[float, float] | None      # bootstrap 95% over items
    percent_agreement: float | None           # share of agreeing rater pairs within items
    n_items: int                              # items with two or more ratings (pairable)
    n_raters: int
    n_ratings: int                            # ratings in pairable items
    reason: Reason | None = None


def value_counts(ratings: pd.DataFrame, domain: Sequence[object]) -> Counts:
    """Items × domain counts of each value, for the items rated at least twice (items in sorted order)."""
    items, item_codes = _codes(ratings["item_id"])
    value_codes = pd.Index(list(domain)).get_indexer(ratings["value"])
    flat = np.bincount(item_codes * len(domain) + value_codes, minlength=len(items) * len(domain))
    counts: Counts = flat.reshape(len(items), len(domain)).astype(np.float64)
    pairable: npt.NDArray[np.bool_] = counts.sum(axis=1) >= 2
    return counts[pairable]


def _codes(column: pd.Series) -> tuple[npt.NDArray[np.object_], npt.NDArray[np.intp]]:
    codes, uniques = pd.factorize(column, sort=True)
    return np.asarray(uniques), codes


def percent_agreement(counts: Counts) -> float | None:
    m = counts.sum(axis=1)
    pairs = (m * (m - 1)).sum()
    if pairs == 0:
        return None
    return float((counts * (counts - 1)).sum() / pairs)


def krippendorff_alpha(ratings: pd.DataFrame, *, level: Level, domain: Sequence[object],
                       n_boot: int = 1000, seed: int = 0) -> Reliability:
    """Alpha over long-format ratings (item_id, rater_id, value); items with < 2 ratings are not pairable.

    `domain` lists every possible value in scale order (numbers for ordinal/interval).
    """
    unknown = set(pd.unique(ratings["value"])) - set(domain)
    if unknown:
        raise ValueError(f"values {sorted(map(str, unknown))} are outside the domain {list(domain)}")
    n_raters = ratings["rater_id"].nunique()
    counts = value_counts(ratings, domain)

    def undefined(reason: Reason) -> Reliability:
        return Reliability(None, level, None, percent_agreement(counts) if len(counts) else None,
                           len(counts), n_raters, int(counts.sum()), reason)

    if n_raters < 2:
        return undefined(because(Why.FEW_RATERS))
    if len(counts) == 0:
        return undefined(because(Why.NONE_RATED_TWICE))
    if np.count_nonzero(counts.sum(axis=0)) < 2:
        return undefined(because(Why.NO_RATING_VARIATION))
    alpha = _alpha(counts, domain, level)
    return Reliability(alpha, level, _bootstrap(counts, domain, level, n_boot, seed),
                       percent_agreement(counts), len(counts), n_raters, int(counts.sum()))


def _alpha(counts: Counts, domain: Sequence[object], level: Level) -> float:
    # Integer codes keep krippendorff off object arrays; ordinal/interval need numeric codes in order.
    return float(krippendorff.alpha(value_counts=counts, value_domain=_numeric_domain(domain, level),
                                    level_of_measurement=level))


def _numeric_domain(domain: Sequence[object], level: Level) -> npt.NDArray[np.float64]:
    return np.arange(len(domain), dtype=float) if level == "nominal" else np.asarray(domain, dtype=float)


def coincidences(counts: Counts) -> npt.NDArray[np.float64]:
    """Per item, its coincidence matrix (n_u n_uᵀ − diag n_u) / (m_u − 1), flattened: items × V²."""
    n_items, v = counts.shape
    pairable: npt.NDArray[np.float64] = np.maximum(counts.sum(axis=1), 2)
    outer: npt.NDArray[np.float64] = counts[:, :, None] * counts[:, None, :]
    outer[:, np.arange(v), np.arange(v)] -= counts
    return (outer / (pairable - 1)[:, None, None]).reshape(n_items, v * v)


def alpha_from_coincidences(o: npt.NDArray[np.float64], domain: Sequence[object],
                            level: Level) -> npt.NDArray[np.float64]:
    """Alpha for a batch of coincidence matrices (draws × V × V), as krippendorff.alpha computes it."""
    values = _numeric_domain(domain, level)
    v = len(values)
    n_v = o.sum(axis=1)                                        # draws × V
    n = n_v.sum(axis=1)
    e = (n_v[:, :, None] * n_v[:, None, :] - n_v[:, :, None] * np.eye(v)) / (n - 1)[:, None, None]
    if level == "nominal":
        d = np.broadcast_to(1.0 - np.eye(v), o.shape)
    elif level == "interval":
        d = np.broadcast_to((values[:, None] - values[None, :]) ** 2, o.shape)
    else:   # ordinal: (sum of n_g from c to k, minus half of n_c and n_k) squared
        cum = np.concatenate([np.zeros((len(o), 1)), np.cumsum(n_v, axis=1)], axis=1)
        low, high = np.minimum.outer(np.arange(v), np.arange(v)), np.maximum.outer(np.arange(v), np.arange(v))
        between = cum[:, high + 1] - cum[:, low]
        d = (between - (n_v[:, :, None] + n_v[:, None, :]) / 2) ** 2
    alpha: npt.NDArray[np.float64] = 1 - (o * d).sum(axis=(1, 2)) / (e * d).sum(axis=(1, 2))
    return alpha


def _bootstrap(counts: Counts, domain: Sequence[object], level: Level, n_boot: int,
               seed: int) -> tuple[float, float] | None:
    """Percentile interval over `n_boot` resamples of the items (with replacement); resamples without
    variation are left out, and with fewer than half the draws left there is no honest interval."""
    n_items, v = counts.shape
    if n_boot <= 0 or n_items < 2:
        return None
    rng = np.random.default_rng(seed)
    per_item = coincidences(counts)
    blocks = []
    for start in range(0, n_boot, DRAWS_PER_BLOCK):
        block = min(DRAWS_PER_BLOCK, n_boot - start)
        picks = rng.integers(0, n_items, (block, n_items))       # the same stream as one draw at a time
        offsets = (np.arange(block) * n_items)[:, None]
        weights = np.bincount((picks + offsets).ravel(), minlength=block * n_items).reshape(block, n_items)
        weights = weights.astype(float)
        varied = np.count_nonzero(weights @ counts, axis=1) >= 2
        if varied.any():
            o = (weights[varied] @ per_item).reshape(-1, v, v)
            blocks.append(alpha_from_coincidences(o, domain, level))
    draws = np.concatenate(blocks) if blocks else np.array([])
    if len(draws) < n_boot / 2:       # most resamples had no variation: no honest interval
        return None
    low, high = np.percentile(draws, [2.5, 97.5])
    if high <= low:                   # every resample agrees perfectly: a zero width would claim certainty
        return None
    return max(float(low), -1.0), min(float(high), 1.0)
