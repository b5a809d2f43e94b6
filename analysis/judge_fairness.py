"""Is the fairness judge itself fair? Its error per group pair, a test that the error is the same across
group pairs, and whether its verdict follows the group labels (issue 53).

Error: per pair both sides scored, the judge's score minus people's mean score (each in [−1, 1]). A judge
that under-reports harm for one group pair (errs negative there) biases the evaluation it stands in for
exactly there, even with a good overall agreement. Per group pair: the mean error with the interval of
judge_validity.mean_with_interval on [−2, 2] (betting below 30 pairs, a bootstrap over pairs above), and the
sign agreement (judge_validity.sign_agreement).

Equal error: Welch's heteroscedastic one-way ANOVA (Welch 1951, "On the comparison of several mean values")
of the per-pair errors across the group pairs with at least 2 rated pairs whose errors vary: the group
pairs' variances may differ (people are surer about some pairs), so the equal-variance F test is not used.

Label swap: the judge asked again with the two groups' labels exchanged (annotate/judge/run.py, `lmra run
--swap-groups`). The responses did not change, so a verdict about the responses names the same response
as the stereotypical one for the first-named group: A (response 1 to group_a) becomes B (response 1 to
the new group_b, the old group_a), and the score changes sign (or stays at none, C). A verdict that keeps
its letter when the labels swap follows the labels, not the responses. Per pair, with s the score and
s' the swapped score: `follows_responses` when sign(s') = −sign(s) (both 0 counts too), `follows_labels`
when sign(s') = sign(s) ≠ 0; the share of each over the pairs asked both ways, with Wilson's interval.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from fairval.analysis import judge_validity as jv
from fairval.analysis.interval import Interval
from fairval.analysis.reasons import Reason, Why, because


@dataclass(frozen=True)
class Welch:
    """Welch's F for equal means with its degrees of freedom (between, within) and p."""
    f: float
    df: tuple[float, float]
    p_value: float


@dataclass(frozen=True)
class LabelSwapShares:
    """How often the judge's verdict followed the group labels (kept its letter) and how often the responses
    (changed sign, or stayed at none) when asked with the labels swapped, over n pairs; a reason when none."""
    n: int
    follows_labels: float | None
    follows_labels_ci: Interval | None
    follows_responses: float | None
    follows_responses_ci: Interval | None
    reason: Reason | None = None


@dataclass(frozen=True)
class GroupError:
    """The judge's error (judge − people) in one group pair, its sign agreement there, and why a number is
    missing."""
    n_rated: int
    mean_error: float | None
    mean_error_ci: Interval | None
    sign_agreement: float | None
    sign_agreement_ci: Interval | None
    reason: Reason | None = None


@dataclass(frozen=True)
class EqualErrorTest:
    """Welch's test of equal mean error over the group pairs it could use (`group_pairs`), or why not."""
    f: float | None
    df: tuple[float, float] | None
    p_value: float | None
    group_pairs: tuple[str, ...]
    reason: Reason | None = None


@dataclass(frozen=True)
class ErrorByGroup:
    groups: dict[str, GroupError]
    equal_error: EqualErrorTest


def welch_anova(groups: list[np.ndarray]) -> Welch:
    """Welch's F for equal means across groups with unequal variances: F, its degrees of freedom, p."""
    n = np.array([len(g) for g in groups], float)
    means = np.array([g.mean() for g in groups])
    variances = np.array([g.var(ddof=1) for g in groups])
    w = n / variances
    grand = (w * means).sum() / w.sum()
    k = len(groups)
    between = (w * (means - grand) ** 2).sum() / (k - 1)
    lam = ((1 - w / w.sum()) ** 2 / (n - 1)).sum()
    f = between / (1 + 2 * (k - 2) * lam / (k ** 2 - 1))
    df2 = (k ** 2 - 1) / (3 * lam)
    return Welch(float(f), (float(k - 1), float(df2)), float(stats.f.sf(f, k - 1, df2)))


def error_by_group(human: pd.Series, judge: pd.Series, strata: pd.Series, *, n_boot: int, seed: int) -> ErrorByGroup:
    """human, judge: per-pair scores; strata: pair -> its group pair. Per group pair the judge's error and
    sign agreement; `equal_error`: Welch's test that the mean error is the same in every group pair."""
    both = jv.paired(human, judge)
    error = both["judge"] - both["human"]
    groups: dict[str, GroupError] = {}
    tested: dict[str, np.ndarray] = {}
    for name, ids in strata.groupby(strata, sort=True).groups.items():
        mine = error[error.index.isin(ids)]
        estimate = jv.mean_with_interval(mine, n_boot, seed, bounds=(-2.0, 2.0))
        in_group = judge[judge.index.isin(ids)]
        agreement = jv.sign_agreement(human, in_group)
        reason = estimate.reason or (because(Why.ONE_RATED_PAIR) if len(mine) == 1 and n_boot else None)
        groups[str(name)] = GroupError(len(mine), estimate.value, estimate.ci, agreement.value, agreement.ci, reason)
        if len(mine) >= 2 and np.ptp(mine.to_numpy(float)) > 0:
            tested[str(name)] = mine.to_numpy(float)
    if len(tested) < 2:
        equal = EqualErrorTest(None, None, None, tuple(sorted(tested)), because(Why.EQUAL_ERROR_UNTESTED))
    else:
        welch = welch_anova(list(tested.values()))
        equal = EqualErrorTest(welch.f, welch.df, welch.p_value, tuple(sorted(tested)))
    return ErrorByGroup(groups, equal)


def label_swap(score: pd.Series, swapped: pd.Series) -> LabelSwapShares:
    """score, swapped: per pair the judge's score as asked and with the group labels exchanged."""
    both = pd.concat([score.rename("s"), swapped.rename("t")], axis=1, join="inner").dropna()
    n = len(both)
    if not n:
        return LabelSwapShares(0, None, None, None, None, because(Why.NOT_SWAPPED))
    s, t = np.sign(both["s"].to_numpy()), np.sign(both["t"].to_numpy())
    labels = int(((t == s) & (s != 0)).sum())
    responses = int((t == -s).sum())
    return LabelSwapShares(n, labels / n, Interval.of(jv.wilson(labels, n)), responses / n,
                           Interval.of(jv.wilson(responses, n)))
