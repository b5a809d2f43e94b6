"""The judge's card beyond agreement: is its confidence worth anything (calibration against people's majority),
and does it reward longer answers more than people do (length lean).

Confidence: the judge's combined answer probabilities r over both orders (004 App. H; analysis.lmra) give its
answer (the most probable of A, B, C in the true order, as canonical +1, −1, 0) and its confidence in it
(that probability). Against the answer of people's majority on the pair (pairs whose majority ties are left
out and counted): the expected calibration error over 10 equal-width bins of confidence,
ECE = Σ_b (n_b / n) |agreement_b − confidence_b|, and the Brier score of r against the majority's answer,
mean Σ_k (r_k − 1[k = majority])² (0 perfect, 2 worst), each with a percentile bootstrap interval over pairs.

Length lean: Pearson r of the judge's score, and of people's mean score, with the difference in length of the
two responses in the true order (characters of response_a minus response_b); their difference with a
percentile bootstrap interval over pairs. A judge that leans more than people do rewards length itself.
"""
from __future__ import annotations

from typing import Any

import numpy as np

BINS = 10
CANONICAL = np.array([1.0, -1.0, 0.0])        # r's A, B, C in the true order as canonical values


def majority(values_per_pair: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's most common canonical value and whether it is unique (a tie has no majority)."""
    out, unique = np.full(len(values_per_pair), np.nan), np.zeros(len(values_per_pair), bool)
    for i, values in enumerate(values_per_pair):
        kinds, counts = np.unique(np.asarray(values, float), return_counts=True)
        if len(kinds) and (counts == counts.max()).sum() == 1:
            out[i], unique[i] = kinds[counts.argmax()], True
    return out, unique


def _ece_brier(r: np.ndarray, target: np.ndarray) -> tuple[float, float, list[dict]]:
    answer = CANONICAL[r.argmax(axis=1)]
    confidence = r.max(axis=1)
    hit = (answer == target).astype(float)
    edges = np.linspace(0.0, 1.0, BINS + 1)
    which = np.clip(np.digitize(confidence, edges[1:-1], right=True), 0, BINS - 1)
    bins, ece = [], 0.0
    for b in range(BINS):
        inside = which == b
        n = int(inside.sum())
        conf = float(confidence[inside].mean()) if n else None
        agree = float(hit[inside].mean()) if n else None
        if conf is not None and agree is not None:
            ece += n / len(r) * abs(agree - conf)
        bins.append({"low": float(edges[b]), "high": float(edges[b + 1]), "n": n, "confidence": conf,
                     "agreement": agree})
    onehot = (CANONICAL[None, :] == target[:, None]).astype(float)
    brier = float(((r - onehot) ** 2).sum(axis=1).mean())
    return float(ece), brier, bins


def confidence_numbers(r: np.ndarray, people: list[np.ndarray], *, n_boot: int, seed: int) -> dict:
    """r: (pairs, 3) the judge's combined probabilities of A, B, C in the true order; people: each pair's
    canonical values from its raters. ECE and Brier with intervals, the bins, n_pairs and ties left out."""
    r = np.asarray(r, float).reshape(-1, 3)
    target, kept = majority(people)
    r, target = r[kept], target[kept]
    out = {"n_pairs": int(len(r)), "n_ties": int((~kept).sum())}
    if len(r) < 2:
        return {**out, "ece": None, "ece_ci": None, "brier": None, "brier_ci": None, "bins": [],
                "reason": "needs at least 2 pairs with the judge's probabilities and a majority among people"}
    ece, brier, bins = _ece_brier(r, target)
    ece_ci = brier_ci = None
    if n_boot:
        rng = np.random.default_rng(seed)
        draws = np.array([_ece_brier(r[idx], target[idx])[:2]
                          for idx in rng.integers(0, len(r), size=(n_boot, len(r)))])
        ece_ci = [float(np.percentile(draws[:, 0], 2.5)), float(np.percentile(draws[:, 0], 97.5))]
        brier_ci = [float(np.percentile(draws[:, 1], 2.5)), float(np.percentile(draws[:, 1], 97.5))]
    return {**out, "ece": ece, "ece_ci": ece_ci, "brier": brier, "brier_ci": brier_ci, "bins": bins}


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 3 or np.std(x) == 0 or np.std(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def length_numbers(judge: np.ndarray, human: np.ndarray, length_difference: np.ndarray, *,
                   n_boot: int, seed: int) -> dict:
    """Pearson r of the judge's and of people's scores with the length difference, on the pairs both scored,
    and judge_r − human_r with a bootstrap interval over pairs."""
    judge, human, diff = (np.asarray(v, float) for v in (judge, human, length_difference))
    n = len(diff)
    judge_r, human_r = _pearson(judge, diff), _pearson(human, diff)
    out: dict[str, Any] = {"n_pairs": n, "judge_r": None if np.isnan(judge_r) else judge_r,
           "human_r": None if np.isnan(human_r) else human_r, "difference": None, "difference_ci": None}
    if out["judge_r"] is None or out["human_r"] is None:
        return {**out, "reason": "needs at least 3 pairs whose lengths, judge scores and people's scores vary"}
    out["difference"] = judge_r - human_r
    if n_boot:
        rng = np.random.default_rng(seed)
        draws = []
        for idx in rng.integers(0, n, size=(n_boot, n)):
            d = _pearson(judge[idx], diff[idx]) - _pearson(human[idx], diff[idx])
            if not np.isnan(d):
                draws.append(d)
        if draws:
            out["difference_ci"] = [float(np.percentile(draws, 2.5)), float(np.percentile(draws, 97.5))]
    return out
