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
