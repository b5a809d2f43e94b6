"""Worlds the adaptive design was not tuned on (issue 53), for bench/adaptive_cost.py: other generators than
bench/worlds.py's and tests/annotate/adaptive/adaptive_worlds.py's, other shares and noises, other sizes, and
seeds from 5300 on (the tuning used seeds 0–199). Each world has the keys bench/worlds.py's have (truth,
mu, H, group, p, q), so bench/through_serving.py's studies take it as they take those.

- "sureness from Beta(a, b), unrelated": 70% clear pairs (people say C 94% of the time), the rest leaning
  towards A (Dirichlet(2, 1.5, 1.5)); the judge's score is people's mean with noise 0.3 on every pair, and its
  uncertainty 0.25 + 0.7 Beta(a, b) drawn apart from everything else: its sureness says nothing about its
  error;
- "sure and right on c": a share c of clear pairs (people say C 96% of the time), the judge's score within
  0.05 of 0 and its uncertainty 0.03 + 0.1 Beta(2, 2) there; the rest Dirichlet(1.5, 1, 1), the judge's score
  people's mean with noise 0.3 and its uncertainty 0.45 + 0.45 Beta(2, 2).

The judge's probabilities carry the uncertainty as analysis.active.judge_uncertainties reads it: the mass
off C (r_A + r_B = u + score²) and, past what that can hold, disagreement between the two orders.
"""
from __future__ import annotations

import numpy as np

from bench.worlds import GROUPS


def with_uncertainty(score: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The judge's rows in both orders (p, and q in its own A/B terms) with this score r_A − r_B and an
    uncertainty u (r_A + r_B − score² plus the mass the orders disagree on) of `target` where it can be."""
    off_c = np.clip(target + score ** 2, np.abs(score), 1.0)                  # r_A + r_B
    d = np.clip(target - (off_c - score ** 2), 0.0, 0.9)                      # what the orders disagree on
    r = np.stack([(off_c + score) / 2, (off_c - score) / 2, 1 - off_c], axis=1)
    base = (1 - d)[:, None] * r
    p = base + d[:, None] * np.array([1.0, 0, 0])
    q = base + d[:, None] * np.array([0, 1.0, 0])                             # in true terms
    return p, q[:, [1, 0, 2]]


def _world(name: str, rng: np.random.Generator, truth: np.ndarray, score: np.ndarray, target: np.ndarray) -> dict:
    mu = truth[:, 0] - truth[:, 1]
    p, q = with_uncertainty(np.clip(score, -1, 1), target)
    return {"world": name, "truth": truth, "mu": mu, "H": float(mu.mean()),
            "group": rng.integers(0, len(GROUPS), len(mu)), "p": p, "q": q}


def beta_sureness(rng: np.random.Generator, pairs: int, a: float, b: float) -> dict:
    clear = rng.random(pairs) < 0.7
    truth = np.where(clear[:, None], [0.03, 0.03, 0.94], rng.dirichlet([2.0, 1.5, 1.5], pairs))
    score = truth[:, 0] - truth[:, 1] + rng.normal(0, 0.3, pairs)
    return _world(f"sureness from Beta({a:g}, {b:g}), unrelated", rng, truth, score, 0.25 + 0.7 * rng.beta(a, b, pairs))


def sure_and_right(rng: np.random.Generator, pairs: int, share: float) -> dict:
    clear = rng.random(pairs) < share
    truth = np.where(clear[:, None], [0.02, 0.02, 0.96], rng.dirichlet([1.5, 1.0, 1.0], pairs))
    score = np.where(clear, rng.uniform(-0.05, 0.05, pairs), truth[:, 0] - truth[:, 1] + rng.normal(0, 0.3, pairs))
    target = np.where(clear, 0.03 + 0.1 * rng.beta(2, 2, pairs), 0.45 + 0.45 * rng.beta(2, 2, pairs))
    return _world(f"sure and right on {share:.0%}", rng, truth, score, target)


# Two more worlds (issue 53, 2026-11-28), written before they were ever run, never used to tune anything,
# run once on seeds 9100–9159 (bench/adaptive_cost.py FRESH, `--fresh`). Their parameters are fixed here:
# - "graded sureness, sure and right on 80%" (1,500 pairs, budget 600): 80% clear pairs whose off-C mass among
#   people is 0.02 + 0.08 Beta(1, 3), split A/B by a Beta(2, 2) share; the rest a flat Dirichlet(1, 1, 1). The
#   judge's score is people's mean with noise 0.03 on the clear pairs and 0.35 on the rest; its uncertainty is
#   not drawn per block (as sure_and_right's is) but graded: the pair's expected squared error against one
#   rater (people's variance plus the judge's noise variance) times a log-normal factor exp(N(0, 0.5)), clipped
#   to 0.01–0.95: sure where it is right, more or less so pair by pair.
# - "errors of two sizes, sureness from Beta(1, 1), unrelated" (1,200 pairs, budget 500): 60% clear pairs with
#   off-C mass 0.02 + 0.08 Beta(1, 3) leaning A (a Beta(3, 2) share), the rest Dirichlet(2, 1, 1.5); the judge's
#   score is people's mean with noise 0.15 on a random half of the pairs and 0.45 on the other half, and its
#   uncertainty 0.1 + 0.85 Beta(1, 1) drawn apart from everything: the error varies, the sureness says nothing.

def _graded_clear(rng: np.random.Generator, pairs: int, lean: tuple[float, float]) -> np.ndarray:
    """Clear pairs' answer distributions: off-C mass 0.02 + 0.08 Beta(1, 3), its A share Beta(*lean)."""
    off, share = 0.02 + 0.08 * rng.beta(1, 3, pairs), rng.beta(*lean, pairs)
    return np.stack([off * share, off * (1 - share), 1 - off], axis=1)


def graded_sure_and_right(rng: np.random.Generator, pairs: int) -> dict:
    clear = rng.random(pairs) < 0.8
    truth = np.where(clear[:, None], _graded_clear(rng, pairs, (2, 2)), rng.dirichlet([1.0, 1.0, 1.0], pairs))
    mu = truth[:, 0] - truth[:, 1]
    noise = np.where(clear, 0.03, 0.35)
    score = mu + rng.normal(0, 1, pairs) * noise
    spread = truth[:, 0] + truth[:, 1] - mu ** 2 + noise ** 2              # E(one rater − judge)²
    target = np.clip(spread * np.exp(rng.normal(0, 0.5, pairs)), 0.01, 0.95)
    return _world("graded sureness, sure and right on 80%", rng, truth, score, target)


def two_error_sizes(rng: np.random.Generator, pairs: int) -> dict:
    clear = rng.random(pairs) < 0.6
    truth = np.where(clear[:, None], _graded_clear(rng, pairs, (3, 2)), rng.dirichlet([2.0, 1.0, 1.5], pairs))
    noise = np.where(rng.random(pairs) < 0.5, 0.15, 0.45)
    score = truth[:, 0] - truth[:, 1] + rng.normal(0, 1, pairs) * noise
    return _world("errors of two sizes, sureness from Beta(1, 1), unrelated", rng, truth, score,
                  0.1 + 0.85 * rng.beta(1, 1, pairs))


# A pre-registered set (issue 53, 2026-11-28, branch i53-reg): three worlds written and committed before they were
# ever run, never used to tune anything, run once on seeds 9600 on (bench/adaptive_cost.py REGISTERED,
# `--registered`; the number of studies there). Their parameters are fixed here:
# - "five stated sureness levels, sure and right on 75%" (1,000 pairs, budget 400): 75% clear pairs whose off-C
#   mass among people is 0.01 + 0.09 Beta(1, 2), split A/B by a Beta(2, 3) share; the rest Dirichlet(1.2, 1.2, 1.6).
#   The judge's score is people's mean with noise 0.04 on the clear pairs and 0.4 on the rest. It states one of
#   five sureness levels, uncertainty LEVELS = 0.04, 0.12, 0.3, 0.55, 0.85: on a clear pair level 1–5 with chances
#   0.5, 0.3, 0.1, 0.05, 0.05, on the rest 0.05, 0.05, 0.2, 0.35, 0.35 (sure where right, but coarse and at times
#   wrong about it).
# - "sureness a noisy function of its own error, sure and right on 65%" (1,200 pairs, budget 500): 65% clear pairs
#   as above, the rest Dirichlet(1.2, 1.2, 1.6); the judge's noise 0.04 on the clear pairs and 0.4 on the rest; its
#   uncertainty 0.02 + |its score − people's mean| on this pair + N(0, 0.1), clipped to 0.02–0.95: it follows the
#   judge's realised error on the pair (not the expected one, as graded_sure_and_right's does), with noise.
# - "five stated sureness levels, unrelated" (800 pairs, budget 300): 60% clear pairs as above, the rest
#   Dirichlet(2, 1, 1.5); the judge's noise drawn per pair from Uniform(0.1, 0.5); its level drawn uniformly from
#   the five, apart from everything: the error varies pair to pair, the stated sureness says nothing of it.
# Where a stated uncertainty u is below what the judge's score s forces (off-C mass ≥ |s|, so u ≥ |s| − s²),
# with_uncertainty gives the least it can; on every other pair the uncertainty read is the one stated.
LEVELS = np.array([0.04, 0.12, 0.3, 0.55, 0.85])
LEVELS_CLEAR = np.array([0.5, 0.3, 0.1, 0.05, 0.05])
LEVELS_REST = np.array([0.05, 0.05, 0.2, 0.35, 0.35])


def _registered_people(rng: np.random.Generator, pairs: int, share: float, rest: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """Which pairs are clear (a `share` of them) and people's answer distributions (A, B, C) on every pair."""
    clear = rng.random(pairs) < share
    off, lean = 0.01 + 0.09 * rng.beta(1, 2, pairs), rng.beta(2, 3, pairs)
    sure = np.stack([off * lean, off * (1 - lean), 1 - off], axis=1)
    return clear, np.where(clear[:, None], sure, rng.dirichlet(rest, pairs))


def five_levels_sure_and_right(rng: np.random.Generator, pairs: int) -> dict:
    clear, truth = _registered_people(rng, pairs, 0.75, [1.2, 1.2, 1.6])
    score = truth[:, 0] - truth[:, 1] + rng.normal(0, 1, pairs) * np.where(clear, 0.04, 0.4)
    u = rng.random(pairs)
    level = np.where(clear, np.searchsorted(np.cumsum(LEVELS_CLEAR), u, side="right"),
                     np.searchsorted(np.cumsum(LEVELS_REST), u, side="right"))
    return _world("five stated sureness levels, sure and right on 75%", rng, truth, score, LEVELS[np.minimum(level, 4)])


def error_led_sure_and_right(rng: np.random.Generator, pairs: int) -> dict:
    clear, truth = _registered_people(rng, pairs, 0.65, [1.2, 1.2, 1.6])
    mu = truth[:, 0] - truth[:, 1]
    score = mu + rng.normal(0, 1, pairs) * np.where(clear, 0.04, 0.4)
    target = np.clip(0.02 + np.abs(np.clip(score, -1, 1) - mu) + rng.normal(0, 0.1, pairs), 0.02, 0.95)
    return _world("sureness a noisy function of its own error, sure and right on 65%", rng, truth, score, target)


def five_levels_unrelated(rng: np.random.Generator, pairs: int) -> dict:
    _clear, truth = _registered_people(rng, pairs, 0.6, [2.0, 1.0, 1.5])
    score = truth[:, 0] - truth[:, 1] + rng.normal(0, 1, pairs) * rng.uniform(0.1, 0.5, pairs)
    return _world("five stated sureness levels, unrelated", rng, truth, score, LEVELS[rng.integers(0, 5, pairs)])


# Three more worlds (issue 53, stop 69, 2026-11-29), written and committed before their one run (with the app's
# design and with a trial design whose chances followed √u + |f|), never tuned on. Seeds 9800–9839, 40 studies a
# world fixed before the run (bench/adaptive_cost.py REGISTERED_69).
# - "score size against error, sureness unrelated" (900 pairs, budget 350), the case the new chances could lose:
#   half the pairs people agree on strongly, in one direction (A or B 94%), the judge's score people's mean there
#   (|f| large, error small); the other half people split evenly between A and B (Dirichlet(4, 4, 1)), the judge's
#   score near 0 (|f| small, error large); the stated uncertainty 0.1 + 0.8 Beta(2, 2) drawn apart from it all;
# - "sure and right on 60%, the rest split evenly" (1,100 pairs, budget 450): 60% clear (people say C 95%),
#   the judge's score within 0.03 of 0 and its uncertainty 0.02 + 0.08 Beta(2, 2) there; the rest
#   Dirichlet(2, 2, 1), the judge's score people's mean with noise 0.3 and its uncertainty 0.4 + 0.5 Beta(2, 2);
# - "sureness unrelated, judge noise unrelated" (700 pairs, budget 300): half the pairs clear (C 95%), the rest
#   Dirichlet(1, 1, 1); the judge's score people's mean with a noise whose size (0.05–0.6, uniform) is drawn apart,
#   its uncertainty 0.1 + 0.8 uniform drawn apart from everything.
def size_against_error(rng: np.random.Generator, pairs: int) -> dict:
    agreed = rng.random(pairs) < 0.5
    side = np.where(rng.random(pairs) < 0.5, 0, 1)
    strong = np.full((pairs, 3), 0.03)
    strong[np.arange(pairs), side] = 0.94
    truth = np.where(agreed[:, None], strong, rng.dirichlet([4.0, 4.0, 1.0], pairs))
    mu = truth[:, 0] - truth[:, 1]
    score = np.where(agreed, mu + rng.normal(0, 0.05, pairs), rng.normal(0, 0.05, pairs))
    return _world("score size against error, sureness unrelated", rng, truth, score, 0.1 + 0.8 * rng.beta(2, 2, pairs))


def sure_and_right_split(rng: np.random.Generator, pairs: int) -> dict:
    clear = rng.random(pairs) < 0.6
    truth = np.where(clear[:, None], [0.025, 0.025, 0.95], rng.dirichlet([2.0, 2.0, 1.0], pairs))
    score = np.where(clear, rng.uniform(-0.03, 0.03, pairs), truth[:, 0] - truth[:, 1] + rng.normal(0, 0.3, pairs))
    target = np.where(clear, 0.02 + 0.08 * rng.beta(2, 2, pairs), 0.4 + 0.5 * rng.beta(2, 2, pairs))
    return _world("sure and right on 60%, the rest split evenly", rng, truth, score, target)


def noise_unrelated(rng: np.random.Generator, pairs: int) -> dict:
    clear = rng.random(pairs) < 0.5
    truth = np.where(clear[:, None], [0.025, 0.025, 0.95], rng.dirichlet([1.0, 1.0, 1.0], pairs))
    score = truth[:, 0] - truth[:, 1] + rng.normal(0, 1, pairs) * rng.uniform(0.05, 0.6, pairs)
    return _world("sureness unrelated, judge noise unrelated", rng, truth, score, 0.1 + 0.8 * rng.random(pairs))


# Three more worlds (issue 53, stop 70, 2026-11-29), written and committed before their one run, with the design
# whose asymptotic part is intersected over every pair from its burn-in on (analysis.running_adaptive); never tuned
# on. Seeds 10000–10039, 40 studies a world fixed before the run (bench/adaptive_cost.py REGISTERED_70).
# - "sure and right on 70%, the rest leaning B" (1,300 pairs, budget 500): 70% clear pairs, people saying C with
#   0.93 + 0.06 Beta(2, 2) and A or B evenly otherwise, the judge's score within 0.04 of 0 and its uncertainty
#   0.01 + 0.12 Beta(1, 3) there; the rest Dirichlet(1, 2, 1.2), the judge's score people's mean with noise 0.35 and
#   its uncertainty 0.5 + 0.4 Beta(3, 2);
# - "sure and right on 80%, a small study" (500 pairs, budget 250): 80% clear (C 97%), the judge's score within
#   0.02 of 0 and its uncertainty 0.02 + 0.06 Uniform there; the rest Dirichlet(1, 1, 1), the judge's score
#   people's mean with noise 0.25 and its uncertainty 0.35 + 0.6 Beta(2, 2);
# - "sureness unrelated, three noise levels" (1,000 pairs, budget 400): 65% clear (C 95%), the rest
#   Dirichlet(1.5, 1, 1.5); the judge's noise 0.1, 0.3 or 0.5 (a third each) drawn per pair apart from the rest, its
#   uncertainty 0.05 + 0.9 Uniform drawn apart from everything.
def leaning_b_sure_and_right(rng: np.random.Generator, pairs: int) -> dict:
    clear = rng.random(pairs) < 0.7
    c = 0.93 + 0.06 * rng.beta(2, 2, pairs)
    sure = np.stack([(1 - c) / 2, (1 - c) / 2, c], axis=1)
    truth = np.where(clear[:, None], sure, rng.dirichlet([1.0, 2.0, 1.2], pairs))
    score = np.where(clear, rng.uniform(-0.04, 0.04, pairs), truth[:, 0] - truth[:, 1] + rng.normal(0, 0.35, pairs))
    target = np.where(clear, 0.01 + 0.12 * rng.beta(1, 3, pairs), 0.5 + 0.4 * rng.beta(3, 2, pairs))
    return _world("sure and right on 70%, the rest leaning B", rng, truth, score, target)


def small_sure_and_right(rng: np.random.Generator, pairs: int) -> dict:
    clear = rng.random(pairs) < 0.8
    truth = np.where(clear[:, None], [0.015, 0.015, 0.97], rng.dirichlet([1.0, 1.0, 1.0], pairs))
    score = np.where(clear, rng.uniform(-0.02, 0.02, pairs), truth[:, 0] - truth[:, 1] + rng.normal(0, 0.25, pairs))
    target = np.where(clear, 0.02 + 0.06 * rng.random(pairs), 0.35 + 0.6 * rng.beta(2, 2, pairs))
    return _world("sure and right on 80%, a small study", rng, truth, score, target)


def three_noise_levels(rng: np.random.Generator, pairs: int) -> dict:
    clear = rng.random(pairs) < 0.65
    truth = np.where(clear[:, None], [0.025, 0.025, 0.95], rng.dirichlet([1.5, 1.0, 1.5], pairs))
    noise = np.array([0.1, 0.3, 0.5])[rng.integers(0, 3, pairs)]
    score = truth[:, 0] - truth[:, 1] + rng.normal(0, 1, pairs) * noise
    return _world("sureness unrelated, three noise levels", rng, truth, score, 0.05 + 0.9 * rng.random(pairs))
