"""May the judge stand in for people? Agreement with intervals, the human ceiling, the alternative-
annotator test and order effects. Pure functions over per-item scores and per-rating frames.

Every result is a frozen Measure (value, ci, n) with a `reason` (analysis.reasons) when the number is
undefined. Resampled intervals draw from numpy's default_rng(seed), so one seed and one number of draws
give one interval everywhere.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import stats

from fairval.analysis.interval import Interval
from fairval.analysis.reasons import Reason, Why, because
from fairval.analysis.sequential import confidence_sequence

Z95: float = stats.norm.ppf(0.975)      # numpy's float64, a float
# Below this many items, a fixed-n interval of a mean is the betting one, valid at every n: the percentile
# bootstrap and the normal interval cover far less than 95% with few items (tests/analysis/
# test_small_samples.py: 51–91% at 2–10 pairs), and still a little less at 30 (91–97%).
SMALL_N = 30


@dataclass(frozen=True)
class Measure:
    """A number with its 95% interval over n, or the reason it has none."""
    value: float | None
    ci: Interval | None
    n: int
    reason: Reason | None = None


@dataclass(frozen=True)
class SplitHalf:
    """The split-half reliability of the per-item mean (value, ci over n items), the mean standard error of
    an item's mean, or the reason it has none."""
    value: float | None
    ci: Interval | None
    n: int
    item_se: float | None
    reason: Reason | None = None


def estimate(value: float | np.floating[Any] | None, ci: Interval | Sequence[float | None] | None = None, n: int = 0,
             reason: Reason | None = None) -> Measure:
    return Measure(None if value is None else float(value), Interval.of(ci), int(n), reason or None)


def paired(human: pd.Series, judge: pd.Series) -> pd.DataFrame:
    """The items both sides scored, as columns human and judge."""
    return pd.concat([human.rename("human"), judge.rename("judge")], axis=1, join="inner").dropna()


Floats = npt.NDArray[np.float64]


@overload
def wilson_bounds(p: float, n: int) -> tuple[float, float]: ...
@overload
def wilson_bounds(p: Floats, n: int) -> tuple[Floats, Floats]: ...
def wilson_bounds(p: float | Floats, n: int) -> tuple[float, float] | tuple[Floats, Floats]:
    """Wilson's score interval (95%) for proportions p (a number or an array) out of n."""
    z2 = Z95 ** 2
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return centre - half, centre + half


def no_spread_interval(value: float, n: int, lower: float, upper: float) -> tuple[float, float]:
    """A 95% interval for the mean of n observations in [lower, upper] that are all equal: the sample has
    no spread to estimate, so, as Wilson's interval does for a share whose answers are all 0 or all 1, it
    uses the largest variance a mean m can have there, (m − lower)(upper − m): Wilson's interval on the
    unit scale. Inside the range and never of zero width."""
    span = upper - lower
    low, high = wilson_bounds(min(max((value - lower) / span, 0.0), 1.0), n)
    return lower + span * float(low), lower + span * float(high)


@overload
def inside(ci: None, lower: float, upper: float) -> None: ...
@overload
def inside(ci: Sequence[float], lower: float, upper: float) -> tuple[float, float]: ...
def inside(ci: Sequence[float] | None, lower: float, upper: float) -> tuple[float, float] | None:
    """An interval cut to the range its number can take (the true value lies there, so nothing is lost)."""
    return None if ci is None else (min(max(ci[0], lower), upper), max(min(ci[1], upper), lower))


def wilson(successes: int, n: int) -> tuple[float, float]:
    """Wilson's score interval for a proportion (95%)."""
    low, high = wilson_bounds(successes / n, n)
    return float(low), float(high)


def sign_agreement(human: pd.Series, judge: pd.Series) -> Measure:
    """Share of agreeing signs over the items whose human mean is not 0 (analysis.calibration.sign_agreement
    says why), with Wilson's interval."""
    both = paired(human, judge)
    if both.empty:
        return estimate(None, reason=because(Why.NOT_PAIRED))
    both = both[both["human"] != 0]
    if both.empty:
        return estimate(None, reason=because(Why.NO_DIRECTION))
    hits = int((np.sign(both["human"]) == np.sign(both["judge"])).sum())
    return estimate(hits / len(both), wilson(hits, len(both)), len(both))


def _undefined_correlation(both: pd.DataFrame, minimum: int) -> Reason | None:
    if len(both) < minimum:
        return because(Why.FEW_PAIRED, n=len(both), minimum=minimum)
    for side in ("human", "judge"):
        if both[side].nunique() < 2:
            return because(Why.NO_VARIATION, side=side)
    return None


def rank_correlation(human: pd.Series, judge: pd.Series, kind: str) -> Measure:
    """Spearman's ρ or Kendall's τ-b with a Fisher-z interval using Fieller, Hartley and Pearson's (1957)
    variances: 1.06/(n−3) for Spearman, 0.437/(n−4) for Kendall."""
    both = paired(human, judge)
    minimum = 5 if kind == "kendall" else 4
    reason = _undefined_correlation(both, minimum)
    if reason:
        return estimate(None, n=len(both), reason=reason)
    if kind == "spearman":
        value, se = stats.spearmanr(both["human"], both["judge"]).statistic, math.sqrt(1.06 / (len(both) - 3))
    else:
        value, se = stats.kendalltau(both["human"], both["judge"]).statistic, math.sqrt(0.437 / (len(both) - 4))
    if abs(value) > 1 - 1e-12:
        return estimate(value, None, len(both), reason=because(Why.PERFECT))
    z = math.atanh(value)
    return estimate(value, (math.tanh(z - Z95 * se), math.tanh(z + Z95 * se)), len(both))




def concordance(human: pd.Series, judge: pd.Series) -> Measure:
    """Lin's concordance correlation coefficient (agreement on the scale) with Lin's (1989) interval on
    Fisher's z, using the moments with divisor n as Lin defines them."""
    both = paired(human, judge)
    reason = _undefined_correlation(both, 4)
    if reason:
        return estimate(None, n=len(both), reason=reason)
    x, y, n = both["human"].to_numpy(float), both["judge"].to_numpy(float), len(both)
    sx2, sy2 = x.var(), y.var()
    sxy = ((x - x.mean()) * (y - y.mean())).mean()
    ccc = 2 * sxy / (sx2 + sy2 + (x.mean() - y.mean()) ** 2)
    if abs(ccc) > 1 - 1e-12:                     # identical scores: no spread left to estimate
        return estimate(ccc, None, n, reason=because(Why.PERFECT))
    r = sxy / math.sqrt(sx2 * sy2)
    if r == 0:                                   # Lin's variance divides by r: no interval then
        return estimate(ccc, None, n)
    u2 = (x.mean() - y.mean()) ** 2 / math.sqrt(sx2 * sy2)
    var_z = ((1 - r ** 2) * ccc ** 2 / ((1 - ccc ** 2) * r ** 2)
             + 2 * ccc ** 3 * (1 - ccc) * u2 / (r * (1 - ccc ** 2) ** 2)
             - ccc ** 4 * u2 ** 2 / (2 * r ** 2 * (1 - ccc ** 2) ** 2)) / (n - 2)
    z = math.atanh(ccc)
    half = Z95 * math.sqrt(max(var_z, 0.0))
    return estimate(ccc, (math.tanh(z - half), math.tanh(z + half)), n)


def _percentile(draws: np.ndarray) -> tuple[float, float] | None:
    draws = draws[np.isfinite(draws)]
    return (float(np.quantile(draws, 0.025)), float(np.quantile(draws, 0.975))) if len(draws) else None


def betting_interval(values: np.ndarray, bounds: tuple[float, float]) -> tuple[float, float]:
    """A 95% interval for the mean of values known to lie in `bounds`, valid at every n: the betting
    confidence sequence (analysis.sequential) with its bets sized for these n, read after the last value.
    Never of zero width and inside `bounds`; the whole range in the rare case (≤ 5%) it comes out empty."""
    found = confidence_sequence(np.asarray(values, float), lower=bounds[0], upper=bounds[1], planned=len(values))
    if found.ci is None or found.ci.low is None or found.ci.high is None:
        return (float(bounds[0]), float(bounds[1]))
    return inside((found.ci.low, found.ci.high), *bounds)


def mean_with_interval(scores: pd.Series, n_boot: int, seed: int,
                       bounds: tuple[float, float] = (-1.0, 1.0)) -> Measure:
    """A mean over items (H, scores in `bounds`) with a percentile bootstrap over items from SMALL_N items
    on (when every item has the same score, no_spread_interval: a bootstrap would give zero width);
    below SMALL_N, betting_interval, as the bootstrap covers far less than 95% there; from one item none,
    with its reason (Why.ONE_RATED_PAIR)."""
    values = scores.dropna().to_numpy(float)
    if not len(values):
        return estimate(None, reason=because(Why.NOTHING_SCORED))
    if len(values) == 1:            # a 95% interval from one value in bounds is all of bounds: none, and why
        return estimate(values.mean(), None, 1, because(Why.ONE_RATED_PAIR))
    if n_boot <= 0:
        return estimate(values.mean(), None, len(values))
    if len(values) < SMALL_N:
        return estimate(values.mean(), betting_interval(values, bounds), len(values))
    if np.ptp(values) == 0:
        return estimate(values.mean(), no_spread_interval(values.mean(), len(values), *bounds), len(values))
    return estimate(values.mean(), inside(_percentile(bootstrap_means(values, n_boot, seed)), *bounds), len(values))


ROWS_AT_ONCE = 1 << 22          # resampled values held at once: 32 MiB of floats, whatever the study's size


def bootstrap_means(values: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """The means of n_boot resamples of values, the draws of default_rng(seed).integers(0, n, (n_boot, n)).
    The indices are drawn as int32 (the same stream as int64 below 2³¹) and the resamples averaged a block of
    rows at a time: at 50,000 pairs and 1,000 draws, `analyze` held 400 MB of indices and 400 MB of resampled
    values at once (1.1 GB peak, bench/pair_scale.py); now 200 MB and a block. Each row's mean is the same sum
    as before, so every number is unchanged to the last bit (tests/analysis/test_bootstrap_means.py)."""
    n = len(values)
    index = np.random.default_rng(seed).integers(0, n, (n_boot, n), dtype=np.int32 if n < 2 ** 31 else np.int64)
    step = max(1, ROWS_AT_ONCE // max(n, 1))
    return np.concatenate([values[index[i:i + step]].mean(axis=1) for i in range(0, n_boot, step)]) \
        if n_boot else np.empty(0)


def rate_difference(human: pd.Series, judge: pd.Series, n_boot: int, seed: int) -> Measure:
    """H_human − H_judge over the items both scored (each in [−1, 1], so a difference in [−2, 2]), with
    a paired bootstrap over those items."""
    both = paired(human, judge)
    if both.empty:
        return estimate(None, reason=because(Why.NOT_PAIRED))
    return mean_with_interval(both["human"] - both["judge"], n_boot, seed, bounds=(-2.0, 2.0))


def human_ceiling(ratings: pd.DataFrame, n_boot: int, seed: int, splits: int = 20) -> SplitHalf:
    """How well a second crowd of the same size would agree with this one on the per-item mean.

    ratings: item_id, rater_id, score. A split sends each item's raters at random into two halves (the
    odd one out to either side); the correlation of the halves' means over items is stepped up to the
    reliability of all raters' mean, by Spearman–Brown for halves of unequal size (see _step_up), and
    averaged over `splits` splits. Interval: each bootstrap draw
    resamples items and takes one of the splits, all draws in chunks of array operations. Also the mean
    standard error of an item's human mean.
    """
    item_se = _item_se(ratings)
    frame = ratings.dropna(subset=["score"]).astype({"item_id": str})
    frame = frame[frame.groupby("item_id")["rater_id"].transform("size") >= 2].reset_index(drop=True)
    items = pd.unique(frame["item_id"])
    if len(items) < 3:
        return SplitHalf(None, None, len(items), item_se, because(Why.FEW_TWICE_RATED, n=len(items)))
    rng = np.random.default_rng(seed)
    codes = pd.Categorical(frame["item_id"], categories=items).codes
    first, second, sizes = _split_means(codes, frame["score"].to_numpy(float), len(items), splits, rng)
    values = _step_up(row_correlation(first.T, second.T), *sizes)
    if not np.isfinite(values).any():
        return SplitHalf(None, None, len(items), item_se, because(Why.FLAT_HALVES))
    draws = []
    for size in np.diff(np.r_[0:max(n_boot, 0):100, max(n_boot, 0)]):    # 100 draws at a time
        weights = rng.multinomial(len(items), np.full(len(items), 1 / len(items)), size=size).astype(float)
        pick = rng.integers(0, splits, size)
        draws.append(_step_up(row_correlation(first.T[pick], second.T[pick], weights),
                              *(np.asarray(size)[pick] if np.ndim(size) else size for size in sizes)))
    ci = _percentile(np.concatenate(draws)) if draws else None
    if ci is not None and ci[1] <= ci[0]:     # the raters agree on every item in every draw: no width to give
        ci = None
    found = estimate(np.nanmean(values), ci, len(items))
    return SplitHalf(found.value, found.ci, found.n, item_se)


def _split_means(codes: npt.NDArray[np.intp], score: Floats, n_items: int, splits: int,
                 rng: np.random.Generator) -> tuple[Floats, Floats, tuple[Floats, Floats, float]]:
    """Items × splits matrices of the two halves' mean scores, and per split the mean over items of
    1 / (raters in the first half), of 1 / (raters in the second), and of 1 / (raters in all)."""
    sizes = np.bincount(codes, minlength=n_items)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    first, second = np.empty((n_items, splits)), np.empty((n_items, splits))
    inverse_first, inverse_second = np.empty(splits), np.empty(splits)
    for k in range(splits):
        order = np.lexsort((rng.random(len(score)), codes))           # raters shuffled within items
        rank = np.empty(len(score), int)
        rank[order] = np.arange(len(score)) - np.repeat(starts, sizes)
        odd = rng.integers(0, 2, n_items)                              # who gets the odd rater
        side = rank < (sizes[codes] + odd[codes]) // 2
        for half, out, inverse in ((side, first, inverse_first), (~side, second, inverse_second)):
            counts = np.bincount(codes[half], None, n_items)
            out[:, k] = np.bincount(codes[half], score[half], n_items) / counts
            inverse[k] = np.mean(1 / counts)
    return first, second, (inverse_first, inverse_second, float(np.mean(1 / sizes)))


def row_correlation(a: Floats, b: Floats, weights: Floats | None = None) -> Floats:
    """Row by row, the Pearson correlation of a and b, the items weighted (how often each was drawn);
    NaN where a row does not vary."""
    weights = np.ones_like(a, dtype=float) if weights is None else weights
    total = weights.sum(axis=1, keepdims=True)
    da = a - (weights * a).sum(axis=1, keepdims=True) / total
    db = b - (weights * b).sum(axis=1, keepdims=True) / total
    with np.errstate(invalid="ignore", divide="ignore"):
        r: Floats = (weights * da * db).sum(axis=1) / np.sqrt((weights * da ** 2).sum(axis=1)
                                                              * (weights * db ** 2).sum(axis=1))
    return r


def _step_up(r: npt.ArrayLike, inverse_first: npt.ArrayLike, inverse_second: npt.ArrayLike,
             inverse_all: float | Floats) -> Floats:
    """The reliability of the mean of all raters from the correlation r of two halves' means.

    With a true score of variance 1 and rater error of variance λ, a mean of m raters has variance
    1 + λ/m, so r = 1 / sqrt((1 + λ a)(1 + λ b)) for halves with mean inverse sizes a and b; solving for
    λ gives the reliability of all k raters' mean, 1 / (1 + λ / k). Equal halves give Spearman–Brown,
    2r / (1 + r); with 3 raters (halves of 1 and 2) Spearman–Brown would understate it. r ≤ 0 keeps
    Spearman–Brown's value (no reliability to speak of)."""
    r = np.asarray(r, np.float64)
    a, b = np.asarray(inverse_first, float), np.asarray(inverse_second, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = 1 - 1 / r ** 2
        lam = (-(a + b) + np.sqrt((a + b) ** 2 - 4 * a * b * c)) / (2 * a * b)
        general = 1 / (1 + lam * inverse_all)
        # a negative correlation of the halves is no reliability at all: kept, but never below −1
        reliability: Floats = np.clip(np.where(r > 0, general, 2 * r / (1 + r)), -1.0, 1.0)
    return reliability


def _item_se(ratings: pd.DataFrame) -> float | None:
    """The mean over items (two raters or more) of sd / sqrt(raters) of the item's scores."""
    grouped = ratings.dropna(subset=["score"]).groupby("item_id")["score"]
    se = grouped.std(ddof=1) / np.sqrt(grouped.size())
    se = se[grouped.size() >= 2]
    return float(se.mean()) if len(se) else None


def first_position_share(shown: pd.Series) -> Measure:
    """Among answers naming a response (A or B as shown), the share naming Response 1, with Wilson's
    interval: 0.5 when position plays no part."""
    sided = shown[shown.isin(["A", "B"])]
    if sided.empty:
        return estimate(None, reason=because(Why.NO_SIDE_NAMED))
    first = int((sided == "A").sum())
    return estimate(first / len(sided), wilson(first, len(sided)), len(sided))


@dataclass(frozen=True)
class OrderShift:
    """How much the judge's answer moves when the responses swap places, over n pairs (a reason when none)."""
    discarded_mass: float | None
    argmax_differs: float | None
    n: int
    reason: Reason | None = None


def judge_order_disagreement(probabilities: Sequence[Mapping[str, float]]) -> OrderShift:
    """Per pair, from the judge's answer probabilities in true order (p_a, p_b, p_c) and swapped (q_…):
    the mass the min-combination of 004 App. H discards (1 − Σ min(p_k, q_k') with the swapped order's
    A and B exchanged), and whether the most likely answer differs between the orders."""
    if not probabilities:
        return OrderShift(None, None, 0, because(Why.NO_BOTH_ORDERS))
    p = np.array([[d["p_a"], d["p_b"], d["p_c"]] for d in probabilities], float)
    q = np.array([[d["q_b"], d["q_a"], d["q_c"]] for d in probabilities], float)    # in true terms
    p, q = p / p.sum(axis=1, keepdims=True), q / q.sum(axis=1, keepdims=True)
    discarded = 1 - np.minimum(p, q).sum(axis=1)
    return OrderShift(float(discarded.mean()), float((p.argmax(axis=1) != q.argmax(axis=1)).mean()), len(p))
