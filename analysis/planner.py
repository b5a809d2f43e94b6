"""Planning a crowd study from a pilot: how the 95% interval of ρ, sign agreement and H narrows with more
pairs and more raters per pair, and the cheapest design that reaches a target width.

For each design (n pairs, k raters per pair) the pilot is resampled: n of its pairs drawn with
replacement, and k of each pair's ratings drawn without replacement (k different raters, as a real
study has) while the pair has k or more, with replacement only beyond that (conservative, and said so);
the judge's score is kept with its pair.
On each simulated study the interval fairval would report is computed (Fisher z for ρ, Wilson for the
sign agreement, the normal interval of the mean for H) and its width averaged over the draws.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

import numpy as np
import numpy.typing as npt
import pandas as pd

from fairval.analysis.judge_validity import Z95, row_correlation, wilson_bounds

PAIRS = (25, 50, 100, 200, 400, 800, 1600, 3200, 6400)
RATERS = (1, 2, 3, 4, 5, 6, 8, 10)


class Widths(TypedDict):
    """A design's expected 95% interval widths (rho_width NaN where ρ is undefined on most draws)."""
    rho_width: float
    sign_width: float
    harm_width: float


@dataclass(frozen=True, slots=True)
class PlannedDesign:
    """The design `cheapest` chose: its size, what it costs and the width it is expected to reach."""
    pairs: int
    raters_per_pair: int
    judgments: int
    raters: int
    cost: float
    expected_width: float


@dataclass(frozen=True, slots=True)
class Pay:
    """What a design costs: 004 App. F paid $1.15 for the instructions and $0.50 a judgment; Prolific's
    fee was about 43% on top."""
    per_judgment: float = 0.50
    per_rater: float = 1.15
    fee: float = 0.43
    judgments_per_rater: int = 20

    def cost(self, pairs: int, raters_per_pair: int) -> tuple[int, int, float]:
        judgments = pairs * raters_per_pair
        raters = max(raters_per_pair, math.ceil(judgments / self.judgments_per_rater))
        return judgments, raters, (judgments * self.per_judgment + raters * self.per_rater) * (1 + self.fee)


def fisher_width(r: npt.NDArray[np.float64], n: int) -> npt.NDArray[np.float64]:
    z: npt.NDArray[np.float64] = np.arctanh(np.clip(r, -0.999999, 0.999999))
    half = Z95 / math.sqrt(n - 3)
    return np.tanh(z + half) - np.tanh(z - half)


def plan(ratings: pd.DataFrame, judge: pd.Series, *, pairs: Sequence[int] = PAIRS, raters: Sequence[int] = RATERS,
         draws: int = 100,
         seed: int = 0) -> pd.DataFrame:
    """ratings: item_id, rater_id, score of the pilot; judge: item -> score. One row per design with the
    expected width of each interval (NaN where the statistic is undefined on most draws)."""
    frame = _pilot(ratings, judge)
    per_pair = ratings_per_pair(frame, judge)
    items = per_pair.index.to_numpy()
    if len(items) < 3:
        raise ValueError(f"the pilot has {len(items)} pair(s) with both human ratings and a judge score; "
                         "planning needs at least 3")
    counts = per_pair.to_numpy()
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    scores = frame["score"].to_numpy(float)
    judged = judge.reindex(items).to_numpy(float)
    rng = np.random.default_rng(seed)
    rows: list[dict[str, object]] = []
    for n in pairs:
        for k in raters:
            chosen = rng.integers(0, len(items), (draws, n))
            picks = offsets[chosen][..., None] + _raters(rng, counts[chosen], k)
            human = scores[picks].mean(axis=2)
            f = judged[chosen]
            rows.append({"pairs": n, "raters_per_pair": k, **_widths(human, f, n)})
    return pd.DataFrame(rows)


def _raters(rng: np.random.Generator, available: npt.NDArray[np.int_], k: int) -> npt.NDArray[np.int_]:
    """Positions of k ratings within each drawn pair (shape draws × n × k): k different ones where the
    pair has at least k (random keys, the k smallest), drawn with replacement where it has fewer."""
    most = int(available.max())
    if k > most:
        return (rng.random((*available.shape, k)) * available[..., None]).astype(int)
    keys = rng.random((*available.shape, most))
    keys[np.arange(most) >= available[..., None]] = np.inf
    positions = np.argsort(keys, axis=-1)[..., :k]
    short = available < k
    if short.any():
        positions[short] = (rng.random((int(short.sum()), k)) * available[short][:, None]).astype(int)
    return positions


def _pilot(ratings: pd.DataFrame, judge: pd.Series) -> pd.DataFrame:
    """The pilot's ratings of pairs the judge scored, grouped by pair."""
    frame = ratings.dropna(subset=["score"])
    return frame[frame["item_id"].isin(judge.dropna().index)].sort_values("item_id", kind="stable")


def ratings_per_pair(ratings: pd.DataFrame, judge: pd.Series) -> pd.Series:
    """What the planner resamples: per pair the judge scored, the pilot's ratings of it."""
    return _pilot(ratings, judge).groupby("item_id", sort=True)["score"].size()


@dataclass(frozen=True, slots=True)
class Assumptions:
    """A plan before any pilot, from what the researcher expects (e.g. from a published study).
    rho: the judge's correlation with the mean of many people's scores of a pair; alpha: how far single
    raters agree (the share of one rating's variance that lies between pairs, as interval α or ICC(1)
    measure it); sd: one rating's standard deviation on the study's scale; harm: the expected H."""
    rho: float
    alpha: float
    sd: float = 0.8
    harm: float = 0.0

    def problems(self) -> list[str]:
        wrong = []
        if not -1 < self.rho < 1:
            wrong.append(f"rho must lie strictly between -1 and 1, not {self.rho:g}")
        if not 0 < self.alpha <= 1:
            wrong.append(f"alpha must be above 0 and at most 1, not {self.alpha:g}")
        if not self.sd > 0:
            wrong.append(f"sd must be above 0, not {self.sd:g}")
        return wrong


def plan_assumed(a: Assumptions, *, pairs: Sequence[int] = PAIRS, raters: Sequence[int] = RATERS, draws: int = 200,
                 seed: int = 0) -> pd.DataFrame:
    """The same table as `plan`, each design simulated afresh from the assumptions: a pair's true mean
    harm + sd·√α·z, a rating that mean plus sd·√(1 − α) noise (so the mean of k ratings has noise
    sd·√((1 − α)/k)), the judge harm + sd·√α·(ρ z + √(1 − ρ²) e). Normal ratings, not the scale's steps."""
    wrong = a.problems()
    if wrong:
        raise ValueError("; ".join(wrong))
    between, within = a.sd * math.sqrt(a.alpha), a.sd * math.sqrt(1 - a.alpha)
    rng = np.random.default_rng(seed)
    rows: list[dict[str, object]] = []
    for n in pairs:
        # the same pairs for every k (common random numbers): the columns differ by the raters alone
        z, noise, judge_noise = rng.standard_normal((3, draws, n))
        judge = a.harm + between * (a.rho * z + math.sqrt(1 - a.rho ** 2) * judge_noise)
        for k in raters:
            human = a.harm + between * z + within / math.sqrt(k) * noise
            rows.append({"pairs": n, "raters_per_pair": k, **_widths(human, judge, n)})
    return pd.DataFrame(rows)


def _widths(human: npt.NDArray[np.float64], judge: npt.NDArray[np.float64], n: int) -> Widths:
    r = row_correlation(human, judge)
    agree = (np.sign(human) == np.sign(judge)).mean(axis=1)
    low, high = wilson_bounds(agree, n)
    h_width = 2 * Z95 * human.std(axis=1, ddof=1) / math.sqrt(n)
    rho = fisher_width(r[np.isfinite(r)], n) if n > 3 else np.array([])
    return {"rho_width": float(rho.mean()) if len(rho) * 2 > len(r) else math.nan,
            "sign_width": float((high - low).mean()), "harm_width": float(h_width.mean())}


def cheapest(table: pd.DataFrame, statistic: str, target: float, pay: Pay) -> PlannedDesign | None:
    """The least costly design whose expected interval width is at most the target, or None."""
    column = {"rho": "rho_width", "sign": "sign_width", "harm": "harm_width"}[statistic]
    fits = table[table[column] <= target]
    if fits.empty:
        return None
    costed = [(pay.cost(int(row.pairs), int(row.raters_per_pair)), row) for row in fits.itertuples()]
    (judgments, raters, cost), row = min(costed, key=lambda c: (c[0][2], c[1].pairs))
    return PlannedDesign(int(row.pairs), int(row.raters_per_pair), judgments, raters, round(cost, 2),
                         float(getattr(row, column)))
