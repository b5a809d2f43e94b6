"""Simulated pair studies for bench/through_serving.py: the truth about each pair, the judge's answer
probabilities in both orders (what `fairval lmra import` takes), and the group pair of each, as a user's
files would carry them.

Each pair has a true answer distribution over A (+1), B (−1) and C (0) among people: most pairs clear "no
difference" cases, the rest contested (bench/active.py's model). A rater answers a pair by a draw from it.
H, the quantity every interval is about, is the mean over the study's pairs of the expected human score
A − B, computed here from the truth, never from the app. The judge sees each pair in both orders with
noise on the true logits (noise 1.5: ρ ≈ 0.8 with the mean of many people).

Worlds:
- clear pairs: 85% of pairs clear; the judge sure and right about them;
- contested pairs: 35% clear, people split on the rest;
- sureness unrelated to error: as clear pairs, but the judge's stated uncertainty (what sets the adaptive
  and active chances) is another pair's, shuffled, with its score unchanged;
- sure of 80% (issue 45's world, as tests/annotate/adaptive/adaptive_worlds.py builds it): 80% of pairs clear
  (people say C 97% of the time), the judge sure of them (its variance 0.05) and right; people split on the
  rest (a flat Dirichlet), the judge unsure of them (variance 0.5–0.75) with its score near people's mean
  (noise 0.25, within ±0.5); the same probabilities in both orders;
- sure of 80%, sureness unrelated: the same pairs and scores, the judge sure (variance 0.25) of 80% of pairs
  drawn apart from them: its sureness says nothing about its error;
- judge at 0.5 (issue 53): the clear-pairs world's people, and a judge whose probabilities are 0.5 for A
  and 0.5 for B on every pair in both orders: its score is 0 and its uncertainty the same everywhere;
- sure and wrong on 25% (issue 53): half the pairs clear (people say C 97% of the time), the judge sure of
  them and right; a quarter contested, the judge unsure and near people's mean; a quarter where people lean
  A (a Dirichlet(3, 1, 1)) while the judge is as sure as on the clear ones that there is no difference: the
  adaptive design sends those to people with its lowest chances, so each one rated weighs the most;
- sorted by group pair: four group pairs, the file sorted by them, 60% clear pairs; people see the stereotype
  in the first two group pairs and its reverse in the last two, and the judge leans the other way in each
  (it under-calls both): harm and the judge's error differing by group pair, what a fairness study looks
  for, in the order real files come in.
"""
from __future__ import annotations

import numpy as np

GROUPS = ("woman vs man", "Black vs White", "Asian vs White", "old vs young")
NOISE = 1.5                                 # judge noise on the logits: ρ ≈ 0.8 with people's mean
WORLDS = ("clear pairs", "contested pairs", "sureness unrelated to error", "sorted by group pair", "sure of 80%",
          "sure of 80%, sureness unrelated", "judge at 0.5", "sure and wrong on 25%")
SORTED_BIAS = (-1.5, -1.5, 1.5, 1.5)        # the judge's lean towards A, per group pair (sorted world)
SORTED_CENTRE = (1.0, 1.0, -1.0, -1.0)      # where people's harm lies, per group pair (sorted world)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def make_world(rng: np.random.Generator, world: str, pairs: int) -> dict:
    """truth (pairs × [A, B, C] among people), mu (expected human score), H, group of each pair (in
    file order), and the judge's rows p (true order) and q (the swapped order, in its own A/B terms)."""
    if world not in WORLDS:
        raise ValueError(f"unknown world {world!r}")
    if world.startswith("sure of 80%"):
        return _sure_of_most(rng, pairs, related=world == "sure of 80%")
    if world == "sure and wrong on 25%":
        return _sure_and_wrong(rng, pairs)
    if world == "judge at 0.5":
        w = make_world(rng, "clear pairs", pairs)
        half = np.tile([0.5, 0.5, 0.0], (pairs, 1))
        return {**w, "world": world, "p": half, "q": half.copy()}
    sorted_file = world == "sorted by group pair"
    group = np.sort(rng.integers(0, len(GROUPS), pairs)) if sorted_file else rng.integers(0, len(GROUPS), pairs)
    clear = {"contested pairs": 0.35, "sorted by group pair": 0.6}.get(world, 0.85)
    centre = np.asarray(SORTED_CENTRE)[group] if sorted_file else 0.3
    z = rng.normal(centre, 1.0, pairs)
    plain = rng.random(pairs) < clear
    logits = np.stack([np.where(plain, 0.3 * z, 1.5 * z), np.where(plain, -0.3 * z, -1.5 * z),
                       np.where(plain, 4.0, 0.0)], axis=1)
    truth = _softmax(logits)
    lean = np.zeros((pairs, 3))
    if sorted_file:
        lean[:, 0], lean[:, 1] = np.asarray(SORTED_BIAS)[group], -np.asarray(SORTED_BIAS)[group]
    p = _softmax(logits + lean + rng.normal(0, NOISE, (pairs, 3)))
    q = _softmax(logits + lean + rng.normal(0, NOISE, (pairs, 3)))          # swapped order, in true terms
    if world == "sureness unrelated to error":
        p, q = _shuffled_sureness(rng, p, q)
    mu = truth[:, 0] - truth[:, 1]
    return {"world": world, "truth": truth, "mu": mu, "H": float(mu.mean()), "group": group,
            "p": p, "q": q[:, [1, 0, 2]]}


def _sure_of_most(rng: np.random.Generator, pairs: int, related: bool) -> dict:
    clear = rng.random(pairs) < 0.8
    truth = np.where(clear[:, None], [0.015, 0.015, 0.97], rng.dirichlet([1.0, 1.0, 1.0], pairs))
    mu = truth[:, 0] - truth[:, 1]
    score = np.clip(np.where(clear, 0.0, mu + rng.normal(0, 0.25, pairs)), -0.5, 0.5)
    sure = clear if related else rng.random(pairs) < 0.8
    s = np.where(sure, 0.05 if related else 0.25, rng.uniform(0.5, 0.75, pairs)) + score ** 2   # r_A + r_B
    r = np.stack([(s + score) / 2, (s - score) / 2, 1 - s], axis=1)
    return {"world": "sure of 80%" if related else "sure of 80%, sureness unrelated", "truth": truth, "mu": mu,
            "H": float(mu.mean()), "group": rng.integers(0, len(GROUPS), pairs), "p": r, "q": r[:, [1, 0, 2]]}


def _sure_and_wrong(rng: np.random.Generator, pairs: int) -> dict:
    kind = rng.choice(3, pairs, p=[0.6, 0.15, 0.25])               # 0 clear, 1 contested, 2 sure and wrong
    truth = np.where((kind == 0)[:, None], [0.015, 0.015, 0.97],
                     np.where((kind == 1)[:, None], rng.dirichlet([1.0, 1.0, 1.0], pairs),
                              rng.dirichlet([8.0, 1.0, 1.0], pairs)))
    mu = truth[:, 0] - truth[:, 1]
    score = np.clip(np.where(kind == 1, mu + rng.normal(0, 0.25, pairs), 0.0), -0.5, 0.5)
    s = np.where(kind == 1, rng.uniform(0.5, 0.75, pairs), 0.05) + score ** 2     # r_A + r_B
    r = np.stack([(s + score) / 2, (s - score) / 2, 1 - s], axis=1)
    return {"world": "sure and wrong on 25%", "truth": truth, "mu": mu, "H": float(mu.mean()),
            "group": rng.integers(0, len(GROUPS), pairs), "p": r, "q": r[:, [1, 0, 2]]}


def _shuffled_sureness(rng, p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same judge scores r_A − r_B, with each pair's uncertainty (r_A + r_B − (r_A − r_B)² plus the mass
    the orders disagree on, as analysis.active reads it) taken from another pair at random: the mass off C
    is moved to reach it, and what that cannot reach is made up by disagreement between the orders."""
    r = np.minimum(p, q)
    kept = r.sum(1)
    r = r / kept[:, None]
    f = r[:, 0] - r[:, 1]
    target = rng.permutation(r[:, 0] + r[:, 1] - f ** 2 + (1 - kept))
    off_c = np.clip(target + f ** 2, np.abs(f), 1.0)                    # r_A + r_B
    d = np.clip(target - (off_c - f ** 2), 0.0, 0.9)                    # mass the two orders disagree on
    r = np.stack([(off_c + f) / 2, (off_c - f) / 2, 1 - off_c], axis=1)
    base = (1 - d)[:, None] * r
    return base + d[:, None] * np.array([1.0, 0, 0]), base + d[:, None] * np.array([0, 1.0, 0])


def item_rows(w: dict) -> list[dict]:
    """The pairs as `fairval items import` takes them, in file order."""
    rows = []
    for k, g in enumerate(w["group"]):
        a, b = GROUPS[g].split(" vs ")
        rows.append({"id": f"p{k:05d}", "prompt": f"Request {k}", "response_a": f"Answer {k} one",
                     "response_b": f"Answer {k} two", "group_a": a, "group_b": b})
    return rows


def judge_rows(w: dict, model: str = "judge") -> list[dict]:
    """The judge's probabilities in both orders, as `fairval lmra import` takes them."""
    return [{"item_id": f"p{k:05d}", "model": model, **dict(zip(("p_a", "p_b", "p_c"), map(float, p))),
             **dict(zip(("q_a", "q_b", "q_c"), map(float, q)))} for k, (p, q) in enumerate(zip(w["p"], w["q"]))]


def answer(rng: np.random.Generator, w: dict, index: int, flipped: bool) -> tuple[float, str]:
    """A rater's answer to pair `index` shown with the sides swapped or not: the score meant (+1 A, −1 B,
    0 C in the pair's true order, a draw from its truth) and the letter clicked (A and B exchanged on the
    screen when the sides are)."""
    meant = min(int((rng.random() > w["truth"][index].cumsum()).sum()), 2)
    shown = "ABC"[meant]
    return (1.0, -1.0, 0.0)[meant], ({"A": "B", "B": "A"}.get(shown, shown) if flipped else shown)


def judge_score(w: dict) -> np.ndarray:
    """The judge's score per pair, r_A − r_B with r ∝ the smaller of its two orders' probabilities (004
    App. H), computed here from the rows written, not by the app."""
    q_true = w["q"][:, [1, 0, 2]]
    r = np.minimum(w["p"], q_true)
    r = r / r.sum(1, keepdims=True)
    return r[:, 0] - r[:, 1]


def mix_ceiling(world: str, pairs: int, budget: int, seeds: range = range(10)) -> tuple[float, float]:
    """What the adaptive design's rule can save at best in a world, from the truth (never from the app):
    per τ of the live floors, the variance per judgment of the weighted terms, mean(e²/π_τ) · mean(π_τ),
    against a uniform sample's, mean(e²), with e² a pair's expected squared residual (one rater's variance
    over 3 raters plus its (μ − λ f) off the mean, λ people's regression on the judge in [0, 1]); the
    least over τ, mean of `seeds` worlds. Returns (ratio, its τ). A design that picks τ from answers
    cannot beat it, and a uniform sample's without-replacement interval gains beside it."""
    from fairval.analysis.active import LIVE_FLOORS, inclusion_probabilities, judge_uncertainties
    ratios = []
    for seed in seeds:
        w = make_world(np.random.default_rng(seed), world, pairs)
        f, u, mu = judge_score(w), judge_uncertainties(w["p"], w["q"][:, [1, 0, 2]]), w["mu"]
        lam = float(np.clip(np.cov(mu, f)[0, 1] / np.var(f, ddof=1), 0, 1))
        off = mu - lam * f
        e2 = (w["truth"][:, 0] + w["truth"][:, 1] - mu ** 2) / 3 + (off - off.mean()) ** 2
        chances = [inclusion_probabilities(u, budget, floor=tau) for tau in LIVE_FLOORS]
        ratios.append([float(np.mean(e2 / pi) * np.mean(pi) / np.mean(e2)) for pi in chances])
    mean = np.mean(ratios, axis=0)
    return float(mean.min()), LIVE_FLOORS[int(mean.argmin())]
