"""A calibrated judge: the mean human score as a function of the judge's score, fitted by isotonic
regression (monotone, no shape assumed) and by a line beside it, checked by k-fold cross-validation
over pairs, and kept as a small table that maps any judge score onto the human scale."""
from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.optimize import isotonic_regression


def fit_isotonic(judge: np.ndarray, human: np.ndarray) -> dict:
    """Knots (x, y): at each distinct judge score the fitted human mean; between knots, linear; beyond
    them, the end value."""
    # Pairs with the same judge score are one point (their mean, weighted by their number): the
    # least-squares monotone fit then gives tied scores one value, as it must (scipy's PAVA).
    knots, inverse, counts = np.unique(np.asarray(judge, float), return_inverse=True, return_counts=True)
    means = np.bincount(inverse, np.asarray(human, float)) / counts
    fitted = isotonic_regression(means, weights=counts.astype(float), increasing=True).x
    return {"x": knots.tolist(), "y": fitted.tolist()}


def fit_linear(judge: np.ndarray, human: np.ndarray) -> dict:
    fit = stats.linregress(judge, human)
    return {"slope": float(fit.slope), "intercept": float(fit.intercept)}


def apply_isotonic(table: dict, scores: np.ndarray) -> np.ndarray:
    return np.interp(np.asarray(scores, float), table["x"], table["y"])


def apply_linear(line: dict, scores: np.ndarray) -> np.ndarray:
    return line["intercept"] + line["slope"] * np.asarray(scores, float)


def _quality(predicted: np.ndarray, human: np.ndarray) -> dict:
    rho = float(stats.pearsonr(predicted, human).statistic) if np.ptp(predicted) > 0 and np.ptp(human) > 0 else None
    return {"pearson_r": rho, "mae": float(np.abs(predicted - human).mean())}


def cross_validate(judge: np.ndarray, human: np.ndarray, *, folds: int = 5, seed: int = 0) -> dict:
    """Held-out ρ and mean absolute error against the human score: the raw judge, the isotonic map and
    the line, each fitted on the other folds."""
    judge, human = np.asarray(judge, float), np.asarray(human, float)
    if len(judge) < 2 * folds:
        return {"reason": f"{len(judge)} pairs scored by both; {folds}-fold cross-validation needs {2 * folds}"}
    fold = np.random.default_rng(seed).permutation(len(judge)) % folds
    iso, line = np.empty(len(judge)), np.empty(len(judge))
    for k in range(folds):
        train, test = fold != k, fold == k
        iso[test] = apply_isotonic(fit_isotonic(judge[train], human[train]), judge[test])
        line[test] = apply_linear(fit_linear(judge[train], human[train]), judge[test])
    return {"folds": folds, "n": len(judge), "raw": _quality(judge, human), "isotonic": _quality(iso, human),
            "linear": _quality(line, human)}
