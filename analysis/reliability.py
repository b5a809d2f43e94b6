"""Inter-rater reliability: Krippendorff's alpha with a bootstrap interval over items."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import krippendorff
import numpy as np
import pandas as pd

Level = Literal["nominal", "ordinal", "interval"]


@dataclass(frozen=True, slots=True)
class Reliability:
    alpha: float | None                       # None when undefined; `reason` says why
    level: Level
    interval: tuple[float, float] | None      # bootstrap 95% over items
    percent_agreement: float | None           # share of agreeing rater pairs within items
    n_items: int                              # items with two or more ratings (pairable)
    n_raters: int
    n_ratings: int                            # ratings in pairable items
    reason: str | None = None


def value_counts(ratings: pd.DataFrame, domain: Sequence) -> np.ndarray:
    """Items × domain counts of each value, for the items rated at least twice."""
    counts = pd.crosstab(ratings["item_id"], ratings["value"]).reindex(columns=list(domain), fill_value=0)
    counts = counts[counts.sum(axis=1) >= 2]
    return counts.to_numpy(dtype=float)


def percent_agreement(counts: np.ndarray) -> float | None:
    m = counts.sum(axis=1)
    pairs = (m * (m - 1)).sum()
    if pairs == 0:
        return None
    return float((counts * (counts - 1)).sum() / pairs)


def krippendorff_alpha(ratings: pd.DataFrame, *, level: Level, domain: Sequence,
                       n_boot: int = 1000, seed: int = 0) -> Reliability:
    """Alpha over long-format ratings (item_id, rater_id, value); items with < 2 ratings are not pairable.

    `domain` lists every possible value in scale order (numbers for ordinal/interval).
    """
    unknown = set(ratings["value"]) - set(domain)
    if unknown:
        raise ValueError(f"values {sorted(map(str, unknown))} are outside the domain {list(domain)}")
    n_raters = ratings["rater_id"].nunique()
    counts = value_counts(ratings, domain)

    def undefined(reason: str) -> Reliability:
        return Reliability(None, level, None, percent_agreement(counts) if len(counts) else None,
                           len(counts), n_raters, int(counts.sum()), reason)

    if n_raters < 2:
        return undefined("fewer than two raters")
    if len(counts) == 0:
        return undefined("no item was rated by two or more raters")
    if np.count_nonzero(counts.sum(axis=0)) < 2:
        return undefined("every rating of the rated-twice items has the same value; "
                         "alpha is undefined without variation")
    alpha = _alpha(counts, domain, level)
    return Reliability(alpha, level, _bootstrap(counts, domain, level, n_boot, seed),
                       percent_agreement(counts), len(counts), n_raters, int(counts.sum()))


def _alpha(counts: np.ndarray, domain: Sequence, level: Level) -> float:
    # Integer codes keep krippendorff off object arrays; ordinal/interval need numeric codes in order.
    codes = np.arange(len(domain)) if level == "nominal" else np.asarray(domain, dtype=float)
    return float(krippendorff.alpha(value_counts=counts, value_domain=codes, level_of_measurement=level))


def _bootstrap(counts: np.ndarray, domain: Sequence, level: Level, n_boot: int,
               seed: int) -> tuple[float, float] | None:
    if n_boot <= 0 or len(counts) < 2:
        return None
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_boot):
        sample = counts[rng.integers(0, len(counts), len(counts))]
        if np.count_nonzero(sample.sum(axis=0)) >= 2:
            draws.append(_alpha(sample, domain, level))
    if len(draws) < n_boot / 2:       # most resamples had no variation: no honest interval
        return None
    low, high = np.percentile(draws, [2.5, 97.5])
    return float(low), float(high)
