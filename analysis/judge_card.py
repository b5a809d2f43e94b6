"""The judge's card beyond agreement: is its confidence worth anything (calibration against people's answers),
and does it reward longer answers more than people do (length lean).

Confidence: the judge's combined answer probabilities r over both orders (004 App. H; analysis.lmra) give its
answer (the most probable of A, B, C in the true order, as canonical +1, −1, 0) and its confidence in it
(that probability). When answers tie for the most probable, the judge's answer is one of them at random: its
chance of agreeing is split evenly between them, never given to A. Scored against people's answer
distribution on the pair (the share of its raters giving each answer), not their majority: a judge whose
confidence is the chance a person gives its answer is calibrated, whatever the number of raters (against a
majority of 3, such a judge showed an ECE of 0.097; issue 53).

ECE over 10 equal-width bins of confidence: ECE = Σ_b (n_b / n) |d_b|, d_b the bin's mean of (people's share
giving the judge's answer − confidence). The plug-in |d̂_b| is biased upward by the raters' noise (a
calibrated judge's true ECE is 0, and the plug-in is never below it), so `ece_debiased` takes
Σ_b (n_b / n) √max(d̂_b² − v_b, 0), v_b the variance of d̂_b (Kumar, Liang and Ma 2019 debias the squared
error this way). The interval: each bin's d_b gets a t interval (variance from the bin's pairs, never below
the raters' own noise, Σ max(a(1−a), c(1−c))/k / n_b² with a the pair's share agreeing and c its confidence,
which the pairs' spread misses where confidences vary and every share is 1) at level
1 − 0.05/B over the B bins with pairs (Bonferroni), and ECE's interval is the least and the largest
Σ_b (n_b / n) |d_b| those allow: 95% for the ECE of these pairs as people would answer them, since all B
bins hold at once with at least that chance (for the bins' normal approximation). Tests: 200 replicates of
a calibrated and of an overconfident judge (tests/analysis/test_judge_card_coverage.py).

Brier score against a random person's answer: per pair, the mean over its raters of Σ_k (r_k − 1[k = answer])²
= Σ_k r_k² − 2 Σ_k r_k s_k + 1 with s the raters' shares (0 perfect, 2 worst), its mean over pairs with the
interval of judge_validity.mean_with_interval on [0, 2] (betting below 30 pairs, a bootstrap over pairs
above, and never zero-width when every pair's score is the same, as a constant judge's can be).

Length lean: Pearson r of the judge's score, and of people's mean score, with the difference in length of the
two responses in the true order (characters of response_a minus response_b); their difference with a
percentile bootstrap interval over pairs. A judge that leans more than people do rewards length itself.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from fairval.analysis.interval import Interval
from fairval.analysis.judge_validity import mean_with_interval
from fairval.analysis.reasons import Reason, Why, because

BINS = 10
CANONICAL = np.array([1.0, -1.0, 0.0])        # r's A, B, C in the true order as canonical values
TIE = 1e-12                                   # probabilities this close count as a tie for the top answer
ALPHA = 0.05


def shares(values_per_pair: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's share of raters giving A, B, C (canonical +1, −1, 0) and its number of raters."""
    out = np.zeros((len(values_per_pair), 3))
    k = np.zeros(len(values_per_pair))
    for i, values in enumerate(values_per_pair):
        values = np.asarray(values, float)
        k[i] = len(values)
        out[i] = [(values == c).mean() if len(values) else np.nan for c in CANONICAL]
    return out, k


def judge_answers(r: np.ndarray, share: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The judge's confidence, its chance of agreeing with a random person (split over tied top answers), and
    whether its top answer was a tie."""
    confidence = r.max(axis=1)
    top = r >= confidence[:, None] - TIE
    agreement = (share * top).sum(axis=1) / top.sum(axis=1)
    return confidence, agreement, top.sum(axis=1) > 1


def _bin_of(confidence: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    edges = np.linspace(0.0, 1.0, BINS + 1)
    return edges, np.clip(np.digitize(confidence, edges[1:-1], right=True), 0, BINS - 1)


@dataclass(frozen=True)
class Bin:
    """One bin of the judge's confidence [low, high): its pairs, their mean confidence and agreement."""
    low: float
    high: float
    n: int
    confidence: float | None
    agreement: float | None


@dataclass(frozen=True)
class Ece:
    ece: float
    ece_debiased: float
    ece_ci: Interval
    bins: tuple[Bin, ...]


@dataclass(frozen=True)
class ConfidenceCard:
    """The judge's confidence against people's answers (see the module's docstring); a reason when too few pairs."""
    n_pairs: int
    n_ties: int
    ece: float | None
    ece_debiased: float | None
    ece_ci: Interval | None
    brier: float | None
    brier_ci: Interval | None
    bins: tuple[Bin, ...]
    reason: Reason | None = None


def ece_numbers(confidence: np.ndarray, agreement: np.ndarray, raters: np.ndarray, *,
                alpha: float = ALPHA) -> Ece:
    """ECE (plug-in), its debiased form and the Bonferroni interval over bins (see the module's docstring),
    and the bins."""
    edges, which = _bin_of(confidence)
    n = len(confidence)
    gap = agreement - confidence
    filled = [b for b in range(BINS) if (which == b).any()]
    level = 1 - alpha / (2 * len(filled))
    ece = debiased = low = high = 0.0
    bins = []
    for b in range(BINS):
        inside = which == b
        n_b = int(inside.sum())
        if not n_b:
            bins.append(Bin(float(edges[b]), float(edges[b + 1]), 0, None, None))
            continue
        d, w = float(gap[inside].mean()), n_b / n
        a, c, k = agreement[inside], confidence[inside], raters[inside]
        # the raters' noise alone, a share of k at the larger of its agreement's and confidence's variance: a
        # floor, as the pairs' spread misses it where the confidences vary and the shares are all 1
        floor = float((np.maximum(a * (1 - a), c * (1 - c)) / k).sum()) / n_b ** 2
        spread = float(gap[inside].var(ddof=1)) / n_b if n_b > 1 else 0.0
        if n_b > 1 and spread >= floor:
            variance, quantile = spread, float(stats.t.ppf(level, n_b - 1))
        else:
            variance, quantile = floor, float(stats.t.ppf(level, max(n_b - 1, 1)))
        half = quantile * np.sqrt(variance)
        ece += w * abs(d)
        debiased += w * np.sqrt(max(d * d - variance, 0.0))
        low += w * max(abs(d) - half, 0.0)
        high += w * min(abs(d) + half, 1.0)
        bins.append(Bin(float(edges[b]), float(edges[b + 1]), n_b, float(confidence[inside].mean()),
                        float(agreement[inside].mean())))
    return Ece(float(ece), float(debiased), Interval(float(low), float(min(high, 1.0))), tuple(bins))


def confidence_numbers(r: np.ndarray, people: list[np.ndarray], *, n_boot: int, seed: int) -> ConfidenceCard:
    """r: (pairs, 3) the judge's combined probabilities of A, B, C in the true order; people: each pair's
    canonical values from its raters. ECE (and debiased) and Brier against people's answers with intervals,
    the bins, n_pairs and n_ties (pairs whose top answers tie: their agreement split)."""
    r = np.asarray(r, float).reshape(-1, 3)
    share, raters = shares(people)
    kept = raters > 0
    r, share, raters = r[kept], share[kept], raters[kept]
    confidence, agreement, tied = judge_answers(r, share)
    pairs, ties = len(r), int(tied.sum())
    if len(r) < 2:
        return ConfidenceCard(pairs, ties, None, None, None, None, None, (), because(Why.FEW_FOR_CONFIDENCE))
    calibration = ece_numbers(confidence, agreement, raters)
    brier = (r ** 2).sum(axis=1) - 2 * (r * share).sum(axis=1) + 1
    brier_estimate = mean_with_interval(pd.Series(brier), n_boot, seed, bounds=(0.0, 2.0))
    return ConfidenceCard(pairs, ties, calibration.ece, calibration.ece_debiased,
                          calibration.ece_ci if n_boot else None, brier_estimate.value, brier_estimate.ci,
                          calibration.bins)


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 3 or np.std(x) == 0 or np.std(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


@dataclass(frozen=True)
class LengthLean:
    """Pearson r of the judge's and of people's scores with the length difference over n_pairs, their
    difference with its interval, or why there is none."""
    n_pairs: int
    judge_r: float | None
    human_r: float | None
    difference: float | None
    difference_ci: Interval | None
    reason: Reason | None = None


def length_numbers(judge: np.ndarray, human: np.ndarray, length_difference: np.ndarray, *,
                   n_boot: int, seed: int) -> LengthLean:
    """Pearson r of the judge's and of people's scores with the length difference, on the pairs both scored,
    and judge_r − human_r with a bootstrap interval over pairs."""
    judge, human, diff = (np.asarray(v, float) for v in (judge, human, length_difference))
    n = len(diff)
    judge_r, human_r = _pearson(judge, diff), _pearson(human, diff)
    if np.isnan(judge_r) or np.isnan(human_r):
        return LengthLean(n, None if np.isnan(judge_r) else judge_r, None if np.isnan(human_r) else human_r,
                          None, None, because(Why.FEW_FOR_LENGTH))
    ci = None
    if n_boot:
        rng = np.random.default_rng(seed)
        draws = []
        for idx in rng.integers(0, n, size=(n_boot, n)):
            d = _pearson(judge[idx], diff[idx]) - _pearson(human[idx], diff[idx])
            if not np.isnan(d):
                draws.append(d)
        if draws:
            ci = Interval(float(np.percentile(draws, 2.5)), float(np.percentile(draws, 97.5)))
    return LengthLean(n, judge_r, human_r, judge_r - human_r, ci)
