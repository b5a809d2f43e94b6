"""The live adaptive design (`study set NAME design=adaptive budget=N`) against a uniform fixed design, in
bench/active.py's simulated worlds (3,000 pairs, 3 raters per pair; clear pairs, contested pairs, and a
judge whose stated uncertainty is unrelated to its error; judges of ρ ≈ 0.95, 0.8, 0.5).

Both designs are looked at after every pair and stop at the first look where H's anytime interval is at
most TARGET wide, as `target_ci_width` makes a study do:
- adaptive: pairs decided in a random order, each kept with the chance the app sets (analysis.active:
  live_floor from the kept pairs completed so far, inclusion_probabilities with Σπ = BUDGET), the terms
  and interval the app reports (analysis.active.adaptive_terms, analysis.sequential.stepwise_interval,
  through annotate.adaptive.estimate's envelope);
- uniform: `study sample --n BUDGET` (a uniform random sample, rated in random order) with the app's
  uniform PPI++ terms and anytime interval.
- held uniform: the live design with its floor held at 1 (every pair the uniform chance BUDGET/3,000),
  the same terms and interval: adaptive / held uniform is the share of a gain the design makes, the
  rest is the interval's.
Reported per world and judge: median human judgments until the stop (3 per pair; raters are paid per
judgment, so cost follows the same ratio), the ratios, each design's coverage of the true H at its stop
over the simulated studies, and the share of the adaptive design's decisions made with chances leaning
on the judge (a live floor below 1).
"""
from __future__ import annotations

import numpy as np

from bench.active import JUDGES, RATERS, WORLDS, study
from fairval.analysis.active import FLOOR_EVERY, adaptive_terms, inclusion_probabilities, live_floor, ppi_terms
from fairval.analysis.sequential import running_interval, stepwise_interval
from fairval.annotate.adaptive.estimate import TYPICAL_SPAN, envelope

BUDGET, TARGET = 1200, 0.1


def adaptive_run(rng: np.random.Generator, s: dict, hold: float | None = None) -> tuple[int, bool, float]:
    """One study under the adaptive design: (pairs people rated until the stop, covered at the stop, the
    share of the decisions before the stop made at a floor below 1: chances leaning on the judge).
    hold: keep the floor there throughout instead of choosing it live (hold=1: the same terms and
    interval with the uniform chance, which tells the design's share of a gain from the interval's)."""
    n = len(s["y"])
    order = rng.permutation(n)
    u, f, y = s["u"][order], s["f"][order], s["y"][order]
    coins = rng.random(n)
    chances, floors = {}, {}
    kept, pi, least, leaning = np.zeros(n, bool), np.zeros(n), np.zeros(n), np.zeros(n, bool)
    for t in range(n):
        rated = np.flatnonzero(kept[:t])                # complete in decision order (raters keep up)
        step = len(rated) // FLOOR_EVERY                # live_floor changes only at these counts
        if step not in floors:
            floors[step] = hold or live_floor(u[rated], y[rated] - f[rated], s["u"], BUDGET, TARGET)
        floor = floors[step]
        if floor not in chances:
            chances[floor] = inclusion_probabilities(u, BUDGET, floor=floor)
        pi[t], least[t], leaning[t] = chances[floor][t], chances[floor].min(), floor < 1
        kept[t] = coins[t] < pi[t]
    m = float(s["f"].mean())
    found = adaptive_terms(y, f, pi, kept, m, least)
    lower, upper = envelope(m, BUDGET, n)
    low, high = stepwise_interval(found.terms, found.lows, found.highs, lower=lower, upper=upper,
                                  means=(-1.0, 1.0), typical_span=TYPICAL_SPAN, planned=n)
    rated, covered, at = _stop(low, high, s["mu"].mean(), np.cumsum(kept))
    return rated, covered, float(leaning[:at + 1].mean())


def uniform_run(rng: np.random.Generator, s: dict) -> tuple[int, bool]:
    """One study with a uniform sample of BUDGET pairs rated in random order, PPI++'s anytime interval."""
    drawn = rng.choice(len(s["y"]), BUDGET, replace=False)
    m = float(s["f"].mean())
    terms = ppi_terms(s["y"][drawn], s["f"][drawn], np.ones(BUDGET), m)
    low, high = running_interval(terms, lower=m - 2, upper=m + 2, planned=BUDGET)
    return _stop(np.maximum(low, -1), np.minimum(high, 1), s["mu"].mean(), np.arange(1, BUDGET + 1))[:2]


def _stop(low, high, truth: float, rated: np.ndarray) -> tuple[int, bool, int]:
    hit = np.flatnonzero(high - low <= TARGET)
    at = hit[0] if len(hit) else len(low) - 1
    return int(rated[at]), bool(low[at] <= truth <= high[at]), int(at)


def run(folder, quick: bool = False) -> list[str]:
    studies = 3 if quick else 60
    lines, covered = [], {"adaptive": [], "held uniform": [], "uniform": []}
    rng = np.random.default_rng(38)
    for world, shape in WORLDS.items():
        for rho, noise in JUDGES.items():
            found = {"adaptive": [], "held uniform": [], "uniform": []}
            for _ in range(studies):
                s = study(rng, noise, **shape)
                found["adaptive"].append(adaptive_run(rng, s))
                found["held uniform"].append(adaptive_run(rng, s, hold=1.0))
                found["uniform"].append(uniform_run(rng, s))
            pairs = {k: float(np.median([r[0] for r in v])) for k, v in found.items()}
            cover = {k: float(np.mean([r[1] for r in v])) for k, v in found.items()}
            leaning = float(np.mean([r[2] for r in found["adaptive"]]))
            for k in covered:
                covered[k] += [r[1] for r in found[k]]
            lines.append(f"adaptive vs uniform, {world}, judge ρ≈{rho}: judgments until H's anytime interval is "
                         f"{TARGET} wide (median of {studies} studies): adaptive {RATERS * pairs['adaptive']:,.0f}, "
                         f"uniform {RATERS * pairs['uniform']:,.0f} ({pairs['adaptive'] / pairs['uniform']:.2f}x), "
                         f"the live design held at the uniform chance {RATERS * pairs['held uniform']:,.0f} "
                         f"({pairs['adaptive'] / pairs['held uniform']:.2f}x); coverage at the stop: "
                         + ", ".join(f"{k} {v:.3f}" for k, v in cover.items())
                         + f"; adaptive decisions at a chance leaning on the judge: {leaning:.1%}")
    lines.append("coverage at the stop over all worlds: " + ", ".join(
        f"{k} {np.mean(v):.3f} ({len(v)} studies)" for k, v in covered.items()))
    return lines
