"""What costs the adaptive design judgments (issue 53), without serving: the live design's decisions, terms and
interval as the app computes them (analysis.active's rules, mix, guard and terms; analysis.sequential's
anytime_running; analysis.running_adaptive's tame intersection), kept pairs completing in decision order (raters
keep up), each study stopping at the first kept pair where H's interval is TARGET wide; against `study sample
--n B` (ppi_terms, anytime_running planned=B, intersected), on the same world and seed. One knob at a time:

- planned: the decided pairs the asymptotic part is tuned to (the app: the expected stop at TARGET,
  running_adaptive.planned_pairs; before issue 53's last change every pair, N);
- guard: the guard's one-sided level (the app: 0.01); burn-in: complete pairs before τ may change and the guard
  may lean (30: PILOT_MIN_PAIRS, which sureness_predicts needs too; before 2026-11-28 the knob left that at 30, so
  "burn-in 20" set τ = 1 at 20 pairs); every: complete pairs between choices of τ (FLOOR_EVERY, 10);
- prior: τ before then (0.7; "τ fixed at x": x from the first pair to the last, never chosen: what a design
  that knew the best mix beforehand would need); z: the one-sided z of mix_evidence's bounds (EVIDENCE_Z, 1.28);
- tame: the least chance, as a share of the uniform one, down to which the prefix is intersected (the app: 0,
  every pair, since stop 70; 0.7 before; None: not at all); span: the typical span setting the variance floor (4);
- betting alpha: the betting part's share of alpha, the asymptotic part the rest (the app: half each), the
  line then also giving `--n` under the same split (its sequence is built the same way).

For choosing the app's settings on the TUNED worlds only (bench/worlds.py's, seeds 0–199); the claim is
measured through serving on other worlds (bench/adaptive_cost.py). Judgments are 3 per kept pair.

`.venv/bin/python -m bench.adaptive_knobs [studies] [knob …]` (also `bench/run.py adaptive_knobs`)
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import contextmanager

import numpy as np

from bench.worlds import judge_score, make_world
from fairval.analysis import active, running_adaptive, sequential
from fairval.analysis.active import (
    FLOOR_EVERY,
    LIVE_FLOORS,
    adaptive_terms,
    apply_rule,
    judge_uncertainties,
    least_variance,
    mix_evidence,
    ppi_terms,
    rule_constants,
    weighted_lambda,
)
from fairval.analysis.running_adaptive import planned_pairs, tame_intersection
from fairval.analysis.sequential import anytime_running
from fairval.annotate.adaptive.estimate import TYPICAL_SPAN, envelope

TARGET, RATERS = 0.15, 3


def people(rng: np.random.Generator, w: dict) -> np.ndarray:
    """Each pair's mean of RATERS answers drawn from its truth (+1 A, −1 B, 0 C)."""
    draws = (rng.random((len(w["mu"]), RATERS, 1)) > w["truth"].cumsum(1)[:, None, :]).sum(2).clip(max=2)
    return np.array([1.0, -1.0, 0.0])[draws].mean(1)


def stop_at(low: np.ndarray, high: np.ndarray, looks: np.ndarray) -> int:
    """The first look (an index) where the interval is TARGET wide, else the last index."""
    hit = [i for i in looks if high[i] - low[i] <= TARGET]
    return int(hit[0]) if hit else len(low) - 1


def uniform(rng: np.random.Generator, w: dict, y: np.ndarray, budget: int, *, tuned: bool = False,
            betting_alpha: float | None = None) -> tuple[int, bool]:
    """`study sample --n budget`; tuned: its asymptotic part tuned to the expected stop as the adaptive design's
    is (planned_pairs with every pair at chance 1), not to the budget (the app's); betting_alpha: as adaptive's."""
    f = judge_score(w)
    drawn = rng.choice(len(y), budget, replace=False)
    m = float(f.mean())
    terms = ppi_terms(y[drawn], f[drawn], np.ones(budget), m)
    plan = planned_pairs(budget, budget + 1, TARGET) if tuned else budget
    with _alpha_split(betting_alpha):
        low, high = anytime_running(terms, lower=m - 2, upper=m + 2, planned=plan, typical_span=4.0)
    low, high = np.maximum(low, -1), np.minimum(high, 1)
    at = stop_at(low, high, np.arange(1, budget))
    return RATERS * (at + 1), bool(low[at] <= w["H"] <= high[at])


def adaptive(rng: np.random.Generator, w: dict, y: np.ndarray, budget: int, *, planned: Callable | None = None,
             guard: float = 0.01, burn: int = 30, prior: float = 0.7,
             tame: float | None = running_adaptive.TAME_MIX, span: float = TYPICAL_SPAN,
             floors: tuple[float, ...] = LIVE_FLOORS, ever: bool = False, z: float | None = None,
             every: int = FLOOR_EVERY, betting_alpha: float | None = None,
             betting_planned: bool = False) -> tuple[int, bool, float]:
    """(judgments to the stop, H held there, share of decisions leaning on the judge); ever: H held at every
    look to the last pair in place of at the stop."""
    n = len(y)
    f_all = judge_score(w)
    u_all = judge_uncertainties(w["p"], w["q"][:, [1, 0, 2]])
    order = rng.permutation(n)
    u, f, yy = u_all[order], f_all[order], y[order]
    coins = rng.random(n)
    rules = {tau: rule_constants(u_all, budget, tau) for tau in set(floors) | {1.0}}
    least_of = {tau: float(apply_rule(r, u_all).min()) for tau, r in rules.items()}
    kept, chance, least, mix = np.zeros(n, bool), np.zeros(n), np.zeros(n), np.zeros(n)
    tau, counted = prior, -1
    old = active.GUARD_LEVEL, active.PILOT_MIN_PAIRS, active.EVIDENCE_Z
    # the burn-in is the guard's too (sureness_predicts needs PILOT_MIN_PAIRS complete pairs)
    active.GUARD_LEVEL, active.PILOT_MIN_PAIRS = guard, min(burn, active.PILOT_MIN_PAIRS)
    active.EVIDENCE_Z = active.EVIDENCE_Z if z is None else z
    try:
        for t in range(n):
            done = np.flatnonzero(kept[:t])
            step = len(done) // every * every
            if step != counted and step >= burn:
                counted = step
                k = done[:step]
                res = yy[k] - weighted_lambda(yy[k], f[k], 1 / chance[k]) * f[k]
                if not active.sureness_predicts(u[k], res):
                    tau = 1.0
                else:
                    ch = {s: apply_rule(rules[s], u[k]) for s in rules}
                    tau = least_variance(mix_evidence(res, ch, 1 / chance[k]))
            chance[t] = float(apply_rule(rules[tau], [u[t]])[0])
            least[t], mix[t] = least_of[tau], tau
            kept[t] = coins[t] < chance[t]
    finally:
        active.GUARD_LEVEL, active.PILOT_MIN_PAIRS, active.EVIDENCE_Z = old
    m = float(f_all.mean())
    found = adaptive_terms(yy, f, chance, kept, m, least)
    lower, upper = envelope(m, budget, n)
    plan = planned_pairs(budget, n, TARGET) if planned is None else int(planned(n, budget))
    with _alpha_split(betting_alpha), _bets_for(plan if betting_planned else None):
        low, high = anytime_running(found.terms, lower=lower, upper=upper, planned=plan,
                                    steps=(found.lows, found.highs), means=(-1.0, 1.0), typical_span=span,
                                    intersect=False, trusted=running_adaptive.trusted_pairs(kept))
    if tame is not None:
        low, high = tame_intersection(low, high, least, tame=tame * budget / n * (1 - 1e-9))
    low, high = np.maximum(low, -1), np.minimum(high, 1)
    looks = np.flatnonzero(kept)
    looks = looks[np.cumsum(kept)[looks] >= 2]
    if ever:
        return RATERS * int(kept.sum()), bool(np.all((low[looks] <= w["H"]) & (w["H"] <= high[looks]))), 0.0
    at = stop_at(low, high, looks)
    return RATERS * int(kept[:at + 1].sum()), bool(low[at] <= w["H"] <= high[at]), float((mix[:at + 1] < 1).mean())


@contextmanager
def _alpha_split(betting: float | None):
    """anytime_running with `betting` of alpha to its betting part and the rest to the asymptotic one (not half
    each); None: as the app splits it."""
    if betting is None:
        yield
        return
    old = sequential.stepwise_interval, sequential.running_asymptotic

    def bets(*args, **kwargs):
        return old[0](*args, **{**kwargs, "alpha": betting})

    def asymptotic(*args, **kwargs):
        return old[1](*args, **{**kwargs, "alpha": sequential.ALPHA - betting})
    sequential.stepwise_interval, sequential.running_asymptotic = bets, asymptotic
    try:
        yield
    finally:
        sequential.stepwise_interval, sequential.running_asymptotic = old


@contextmanager
def _bets_for(planned: int | None):
    """anytime_running with its betting part's bets sized for `planned` decided pairs (not ASYMPTOTIC_FROM's 30);
    None: as the app sizes them. Fixed before the first pair, so the bets stay predictable and the part exact."""
    if planned is None:
        yield
        return
    old = sequential.stepwise_interval

    def bets(*args, **kwargs):
        return old(*args, **{**kwargs, "planned": planned})
    sequential.stepwise_interval = bets
    try:
        yield
    finally:
        sequential.stepwise_interval = old


KNOBS: dict[str, dict] = {
    "app": {},
    "tuned to every pair": {"planned": lambda n, b: n},
    "tuned to N/4": {"planned": lambda n, b: n // 4},
    "expected stop, s 0.15": {"planned": lambda n, b: _with_spread(0.15, b, n)},
    "expected stop, s 0.25": {"planned": lambda n, b: _with_spread(0.25, b, n)},
    "expected stop, s 0.3": {"planned": lambda n, b: _with_spread(0.3, b, n)},
    "expected stop, s 0.45": {"planned": lambda n, b: _with_spread(0.45, b, n)},
    "guard 0.05": {"guard": 0.05},
    "guard 0.1": {"guard": 0.1},
    "burn-in 20": {"burn": 20},
    "burn-in 20, every 5": {"burn": 20, "every": 5},
    "every 5": {"every": 5},
    "burn-in 10": {"burn": 10},
    "burn-in 20, prior 0.5": {"burn": 20, "prior": 0.5},
    "burn-in 20, prior 0.6": {"burn": 20, "prior": 0.6},
    "burn-in 10, prior 0.5": {"burn": 10, "prior": 0.5},
    "evidence z 0.84": {"z": 0.8416},
    "evidence z 0": {"z": 0.0},
    "betting alpha 0.01": {"betting_alpha": 0.01},
    "betting alpha 0.005": {"betting_alpha": 0.005},
    "bets for the expected stop": {"betting_planned": True},
    "τ fixed at 0.1": {"prior": 0.1, "burn": 1 << 30},
    "τ fixed at 0.3": {"prior": 0.3, "burn": 1 << 30},
    "τ fixed at 0.5": {"prior": 0.5, "burn": 1 << 30},
    "prior 0.5": {"prior": 0.5},
    "prior 1.0": {"prior": 1.0},
    "no tame intersection": {"tame": None},
    "tame from 0.5": {"tame": 0.5},
    "tame from 0.3": {"tame": 0.3},
    "variance floor span 2": {"span": 2.0},
    "variance floor span 1": {"span": 1.0},
}


def _with_spread(spread: float, budget: int, pairs: int) -> int:
    old = running_adaptive.EXPECTED_SPREAD
    running_adaptive.EXPECTED_SPREAD = spread
    try:
        return planned_pairs(budget, pairs, TARGET)
    finally:
        running_adaptive.EXPECTED_SPREAD = old


LINES = [("contested pairs", 400, 200), ("sure and wrong on 25%", 400, 200), ("sure of 80%", 400, 200),
         ("sure of 80%, sureness unrelated", 400, 200), ("clear pairs", 400, 200), ("sureness unrelated to error", 400, 200),
         ("sure of 80%", 2000, 1000),
         ("sure of 80%, sureness unrelated", 2000, 1000)]


def run(folder=None, quick: bool = False, studies: int = 30, knobs: tuple[str, ...] | None = None):
    if quick:
        studies, knobs = 2, ("app", "tuned to every pair")
    for world, pairs, budget in LINES[:1] if quick else LINES:
        found: dict[str, list] = {k: [] for k in (knobs or KNOBS)}
        uni, tuned = [], []
        split: dict[str, list] = {k: [] for k in found if "betting_alpha" in KNOBS[k]}
        for seed in range(studies):
            w = make_world(np.random.default_rng(seed), world, pairs)
            y = people(np.random.default_rng([seed, 1]), w)
            uni.append(uniform(np.random.default_rng([seed, 2]), w, y, budget))
            tuned.append(uniform(np.random.default_rng([seed, 2]), w, y, budget, tuned=True))
            for k in found:
                found[k].append(adaptive(np.random.default_rng([seed, 3]), w, y, budget, **KNOBS[k]))
            for k in split:
                split[k].append(uniform(np.random.default_rng([seed, 2]), w, y, budget,
                                        betting_alpha=KNOBS[k]["betting_alpha"])[0])
        u = np.mean([r[0] for r in uni])
        yield (f"{world}, {pairs} pairs, budget {budget}, {studies} studies: uniform {u:.0f} judgments (held "
               f"{sum(r[1] for r in uni)}); tuned to the expected stop {np.mean([r[0] for r in tuned]):.0f} (held "
               f"{sum(r[1] for r in tuned)})")
        for k, rows in found.items():
            a = np.mean([r[0] for r in rows])
            same = (f"; `--n` with the same split {np.mean(split[k]):.0f} = {np.mean(split[k]) / u:.2f}x, the design "
                    f"{a / np.mean(split[k]):.2f}x of it" if k in split else "")
            yield (f"    {k:24s} {a:6.0f} = {a / u:.2f}x, held {sum(r[1] for r in rows)}/{len(rows)}, "
                   f"leaning {np.mean([r[2] for r in rows]):.0%}{same}")


def coverage(world: str, studies: int, knobs: tuple[str, ...], pairs: int = 400, budget: int = 200):
    """Per knob: the studies whose interval ever excluded H (every look, to the last pair), seeds 1000 on."""
    for k in knobs:
        missed = 0
        for seed in range(1000, 1000 + studies):
            w = make_world(np.random.default_rng(seed), world, pairs)
            y = people(np.random.default_rng([seed, 1]), w)
            missed += not adaptive(np.random.default_rng([seed, 3]), w, y, budget, ever=True, **KNOBS[k])[1]
        yield f"{world}, {pairs} pairs: {k}: ever excluded H in {missed} of {studies}"


if __name__ == "__main__":
    for line in run(studies=int(sys.argv[1]) if len(sys.argv) > 1 else 30, knobs=tuple(sys.argv[2:]) or None):
        print(line, flush=True)
