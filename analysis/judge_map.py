"""A calibrated judge: the mean human score as a function of the judge's score, fitted by isotonic
regression (monotone, no shape assumed) and by a line beside it, checked by k-fold cross-validation
over pairs, and kept as a small table that maps any judge score onto the human scale."""
from __future__ import annotations

from typing import TypedDict

import numpy as np
import numpy.typing as npt
from scipy import stats
from scipy.optimize import isotonic_regression

Scores = npt.NDArray[np.float64]


class IsotonicTable(TypedDict):
    x: list[float]
    y: list[float]


class Line(TypedDict):
    slope: float
    intercept: float


class Quality(TypedDict):
    pearson_r: float | None
    mae: float


class CrossValidation(TypedDict, total=False):
    """Either `reason` alone (too few pairs) or the rest."""
    reason: str
    folds: int
    n: int
    raw: Quality
    isotonic: Quality
    linear: Quality


def fit_isotonic(judge: npt.ArrayLike, human: npt.ArrayLike) -> IsotonicTable:
    """Knots (x, y): at each distinct judge score the fitted human mean; between knots, linear; beyond
    them, the end value."""
    # Pairs with the same judge score are one point (their mean, weighted by their number): the
    # least-squares monotone fit then gives tied scores one value, as it must (scipy's PAVA).
    knots, inverse, counts = np.unique(np.asarray(judge, float), return_inverse=True, return_counts=True)
    means = np.bincount(inverse, np.asarray(human, float)) / counts
    fitted = isotonic_regression(means, weights=counts.astype(float), increasing=True).x
    return {"x": knots.tolist(), "y": fitted.tolist()}


def fit_linear(judge: npt.ArrayLike, human: npt.ArrayLike) -> Line:
    fit = stats.linregress(judge, human)
    return {"slope": float(fit.slope), "intercept": float(fit.intercept)}


def apply_isotonic(table: IsotonicTable, scores: npt.ArrayLike) -> Scores:
    return np.interp(np.asarray(scores, np.float64), table["x"], table["y"])


def apply_linear(line: Line, scores: npt.ArrayLike) -> Scores:
    return line["intercept"] + line["slope"] * np.asarray(scores, np.float64)


def _quality(predicted: Scores, human: Scores) -> Quality:
    rho = float(stats.pearsonr(predicted, human).statistic) if np.ptp(predicted) > 0 and np.ptp(human) > 0 else None
    return {"pearson_r": rho, "mae": float(np.abs(predicted - human).mean())}


def cross_validate(judge: npt.ArrayLike, human: npt.ArrayLike, *, folds: int = 5, seed: int = 0) -> CrossValidation:
    """Held-out ρ and mean absolute error against the human score: the raw judge, the isotonic map and
    the line, each fitted on the other folds."""
    x, y = np.asarray(judge, np.float64), np.asarray(human, np.float64)
    if len(x) < 2 * folds:
        return {"reason": f"{len(x)} pairs scored by both; {folds}-fold cross-validation needs {2 * folds}"}
    fold = np.random.default_rng(seed).permutation(len(x)) % folds
    iso, line = np.empty(len(x)), np.empty(len(x))
    for k in range(folds):
        train, test = fold != k, fold == k
        iso[test] = apply_isotonic(fit_isotonic(x[train], y[train]), x[test])
        line[test] = apply_linear(fit_linear(x[train], y[train]), x[test])
    return {"folds": folds, "n": len(x), "raw": _quality(x, y), "isotonic": _quality(iso, y),
            "linear": _quality(line, y)}
