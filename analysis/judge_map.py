"""A calibrated judge: the mean human score as a function of the judge's score, fitted by isotonic
regression (monotone, no shape assumed) and by a line beside it, checked by k-fold cross-validation
over pairs, and kept as a small table that maps any judge score onto the human scale. The table and the
line are the calibration map file's JSON (TypedDicts, read back by apply_*); the cross-validation is a frozen
result, written into the file by its to_dict."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, TypedDict

import numpy as np
import numpy.typing as npt
from scipy import stats
from scipy.optimize import isotonic_regression

from fairval.analysis.reasons import Reason, Why, because

Scores = npt.NDArray[np.float64]


class IsotonicTable(TypedDict):
    x: list[float]
    y: list[float]


class Line(TypedDict):
    slope: float
    intercept: float


@dataclass(frozen=True, slots=True)
class Quality:
    """Held-out agreement with the human score: Pearson's r (None without variation) and mean absolute error."""
    pearson_r: float | None
    mae: float


@dataclass(frozen=True, slots=True)
class CrossValidation:
    """The raw judge's, the isotonic map's and the line's held-out quality over n pairs in `folds` folds, or
    the reason there is none (too few pairs)."""
    folds: int
    n: int
    raw: Quality | None = None
    isotonic: Quality | None = None
    linear: Quality | None = None
    reason: Reason | None = None

    def to_dict(self) -> dict[str, Any]:
        """The calibration map file's form: `reason` alone (its sentence), or the rest."""
        if self.reason is not None:
            return {"reason": str(self.reason)}
        qualities = {"raw": self.raw, "isotonic": self.isotonic, "linear": self.linear}
        return {"folds": self.folds, "n": self.n, **{k: asdict(q) for k, q in qualities.items() if q is not None}}


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
    return Quality(rho, float(np.abs(predicted - human).mean()))


def cross_validate(judge: npt.ArrayLike, human: npt.ArrayLike, *, folds: int = 5, seed: int = 0) -> CrossValidation:
    """Held-out Pearson r and mean absolute error against the human score: the raw judge, the isotonic map and
    the line, each fitted on the other folds."""
    x, y = np.asarray(judge, np.float64), np.asarray(human, np.float64)
    if len(x) < 2 * folds:
        return CrossValidation(folds, len(x), reason=because(Why.FEW_TO_CROSS_VALIDATE, n=len(x), folds=folds,
                                                             needed=2 * folds))
    fold = np.random.default_rng(seed).permutation(len(x)) % folds
    iso, line = np.empty(len(x)), np.empty(len(x))
    for k in range(folds):
        train, test = fold != k, fold == k
        iso[test] = apply_isotonic(fit_isotonic(x[train], y[train]), x[test])
        line[test] = apply_linear(fit_linear(x[train], y[train]), x[test])
    return CrossValidation(folds, len(x), _quality(x, y), _quality(iso, y), _quality(line, y))
