"""The crowd's own model of itself: Dawid and Skene (1979), "Maximum likelihood estimation of observer
error-rates using the EM algorithm", for one nominal question.

Each item has one true class k (prior π_k); each rater r answers l with probability θ_r[k, l] whatever the
item. EM alternates the items' posterior over classes (E) and π, θ from those posteriors (M), starting from
the answers' shares per item (a soft majority vote). θ's rows are smoothed by half an answer per cell (a
Jeffreys-like prior), so a rater seen once never gets a probability of 0 or 1.

A rater's competence is Σ_k π_k θ_r[k, k]: the chance they give an item's true class. A rater answering at
random gives answers unrelated to the class: their agreement with the other raters' label (the posterior
without their own answers) is then what their own answer shares give by chance. `chance_test` checks that
with exact one-sided tests (Poisson-binomial over the items the rater shares with others):

- `p_value`, against answering at random: each item's chance is the rater's share of the label the others
  chose; a large p means the rater's agreement does not beat chance;
- `p_honest`, against an honest rater right `HONEST_ACCURACY` (80%) of the time and wrong evenly among the
  other classes: on an item whose label is right with probability q (the leave-one-out posterior's), such
  a rater agrees with chance a·q + (1 − a)(1 − q)/(K − 1); a small p means fewer agreements than an honest
  rater would give.

A rater is answering no better than at random (analysis.raters) when both hold at 5%: they do not beat
chance, and they agree less than an honest rater right 80% of the time would. The second condition sets
the false-flag rate: an honest rater right 80% of the time or more is flagged in at most 5% of cases (for
a calibrated posterior; the test's worlds, tests/analysis/test_rater_flag.py, measure it). The first test
alone, at 5%, flagged 7–19% of such raters with 20–30 shared items: failing to show better than chance is
not evidence of answering at random (issue 53).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

SMOOTHING = 0.5
HONEST_ACCURACY = 0.8          # the honest rater the flag must spare (false flags ≤ 5% at this accuracy)
MAX_ROUNDS = 500
TOLERANCE = 1e-10


@dataclass(frozen=True)
class RaterModel:
    classes: tuple[str, ...]
    prior: np.ndarray                      # π_k
    confusion: dict[str, np.ndarray]       # rater -> θ_r, rows: true class, columns: answer
    posterior: pd.DataFrame                # item x class: P(class | every answer)
    rounds: int

    def labels(self) -> pd.Series:
        """Each item's most probable class (ties: the first in `classes`)."""
        return pd.Series(np.asarray(self.classes, dtype=object)[self.posterior.to_numpy().argmax(axis=1)],
                         index=self.posterior.index, name="model_label")

    def competence(self) -> dict[str, float]:
        return {r: float(self.prior @ np.diag(theta)) for r, theta in self.confusion.items()}


def dawid_skene(answers: pd.DataFrame) -> RaterModel | None:
    """answers: item_id, rater_id, value (one question). None with fewer than 2 classes or no item answered
    twice (nothing to learn a rater's errors from)."""
    frame = answers[["item_id", "rater_id", "value"]].astype(str).drop_duplicates(["item_id", "rater_id"])
    classes = tuple(sorted(frame["value"].unique()))
    if len(classes) < 2 or not (frame.groupby("item_id").size() >= 2).any():
        return None
    items = pd.Index(sorted(frame["item_id"].unique()))
    raters = sorted(frame["rater_id"].unique())
    i = items.get_indexer(frame["item_id"])
    r = pd.Index(raters).get_indexer(frame["rater_id"])
    a = pd.Index(classes).get_indexer(frame["value"])
    k, n_items, n_raters = len(classes), len(items), len(raters)
    posterior = np.zeros((n_items, k))
    np.add.at(posterior, (i, a), 1.0)
    posterior /= posterior.sum(axis=1, keepdims=True)
    rounds = 0
    for rounds in range(1, MAX_ROUNDS + 1):  # noqa: B007 — the rounds run are read after the loop
        prior = posterior.mean(axis=0)
        counts = np.full((n_raters, k, k), SMOOTHING)
        # counts[r, true, answer] += T[i, true]; numpy's stubs leave a slice out of ufunc.at's index, numpy takes it
        np.add.at(counts, (r, slice(None), a), posterior[i])  # type: ignore[arg-type]
        theta = counts / counts.sum(axis=2, keepdims=True)
        log_post = np.tile(np.log(prior), (n_items, 1))
        np.add.at(log_post, i, np.log(theta[r, :, a]))
        log_post -= log_post.max(axis=1, keepdims=True)
        updated = np.exp(log_post)
        updated /= updated.sum(axis=1, keepdims=True)
        change = float(np.abs(updated - posterior).max())
        posterior = updated
        if change < TOLERANCE:
            break
    prior = posterior.mean(axis=0)
    return RaterModel(classes, prior, {rater: theta[j] for j, rater in enumerate(raters)},
                      pd.DataFrame(posterior, index=items, columns=list(classes)), rounds)


@dataclass(frozen=True, slots=True)
class ChanceTest:
    rater_id: str
    n: int                 # items the rater answered that someone else answered too
    agreed: int            # of those, answered as the other raters' label
    expected: float        # agreement expected from the rater's own answer shares alone
    p_value: float | None  # P(agreement ≥ agreed) answering at random; None when n is 0
    expected_honest: float = 0.0        # agreement expected from a rater right HONEST_ACCURACY of the time
    p_honest: float | None = None       # P(agreement ≤ agreed) for that honest rater; None when n is 0


def chance_test(model: RaterModel, answers: pd.DataFrame) -> list[ChanceTest]:
    """Per rater: agreement with the leave-one-out label (the posterior with the rater's own answer divided
    out) against the chance a random answerer with the rater's answer shares would have."""
    frame = answers[["item_id", "rater_id", "value"]].astype(str).drop_duplicates(["item_id", "rater_id"])
    classes = list(model.classes)
    others = frame.groupby("item_id")["rater_id"].transform("size") - 1
    out = []
    for rater, own in frame.assign(others=others.to_numpy()).groupby("rater_id", sort=True):
        theta = model.confusion[rater]
        shares = own["value"].value_counts(normalize=True)
        shared = own[own["others"] > 0]
        if shared.empty:
            out.append(ChanceTest(rater, 0, 0, 0.0, None))
            continue
        answer = pd.Index(classes).get_indexer(shared["value"])
        without = model.posterior.loc[shared["item_id"]].to_numpy() / theta[:, answer].T
        label = np.asarray(classes, dtype=object)[without.argmax(axis=1)]
        chance = np.array([shares.get(lbl, 0.0) for lbl in label], dtype=float)
        agreed = int((shared["value"].to_numpy() == label).sum())
        right = without.max(axis=1) / without.sum(axis=1)            # the chance the others' label is right
        a, k = HONEST_ACCURACY, len(classes)
        honest = a * right + (1 - a) * (1 - right) / (k - 1)
        out.append(ChanceTest(rater, len(shared), agreed, float(chance.sum()), _at_least(chance, agreed),
                              float(honest.sum()), 1.0 - _at_least(honest, agreed + 1)))
    return out


def _at_least(chances: np.ndarray, hits: int) -> float:
    """P(X ≥ hits) for X a sum of independent Bernoulli(chances): the exact Poisson-binomial tail."""
    if hits > len(chances):
        return 0.0
    dist = np.zeros(len(chances) + 1)
    dist[0] = 1.0
    for c in chances:
        dist[1:] = dist[1:] * (1 - c) + dist[:-1] * c
        dist[0] *= 1 - c
    return float(min(1.0, dist[hits:].sum()))
