"""How much of a uniform sample's judgments any inverse-probability design could save in a world (issue 53):
the bound the adaptive design's cost line is measured against.

People's answer on a pair is A (+1), B (−1) or C (0); a pair kept is rated by r people, Y its mean; f the judge's
score. The estimate of H, (1/N) Σ f_i + (1/N) Σ ξ_i (Y_i − f_i) / π_i with pair i kept with chance π_i, has the
variance (1/N²) Σ e_i (1 − π_i) / π_i, e_i = E(Y_i − f_i)² = (μ_i − f_i)² + σ_i² / r (σ_i² one person's
variance). A uniform sample of n pairs (π = n / N) and a design with π_i ∝ w_i reach the same variance when
the design keeps R · n pairs in expectation, with

    R = mean(e / w) · mean(w) / mean(e)        (the same fpc term on both sides cancels),

whatever the target width, as long as no π reaches 1 (the stops here keep a tenth of the pairs). The oracle
w = √e gives R = mean(√e)² / mean(e) (Cauchy–Schwarz: the least R any w gives). The design's own rule is
w = (1 − τ) √u / mean(√u) + τ, u the judge's stated uncertainty (analysis.active), τ its mix. Both use the
judge with a weight of 1 (PPI's λ = 1), as a PPI sample does; the figures are asymptotic, before the
anytime interval's own costs (burn-in, the betting part's share of α), which the measured ratio carries.

What a design can know of a pair before people rate it is the judge's row, not e. Two more bounds say how far
that reaches: the best rule of u alone (w = √E(e | u), u in 20 bins of equal count) and of u and the judge's
score's size |f| together (5 × 5 bins); and `fitted`, a rule a design could run: E(e | u, |f|) taken as a line
in √u, |f| and their product by least squares on 150 pairs rated by 3 simulated people, used only where an F-test
shows the line explains their squared errors (p < 0.01; else uniform), mixed with uniform at τ = 0.2.

    .venv/bin/python -m bench.oracle_ratio [studies]
"""
from __future__ import annotations

import sys

import numpy as np
from scipy import stats

from bench.adaptive_cost import FRESH, HELD_OUT, LINES, REGISTERED
from bench.worlds import judge_rows
from fairval.analysis.active import LIVE_FLOORS, uncertainties_of
from fairval.analysis.lmra import combine_orders
from fairval.annotate.material.importers import PROBABILITY_FIELDS

RATERS = 3
FITTED_PAIRS = 150             # the answers `fitted` learns from, rated pairs drawn uniformly
FITTED_MIX = 0.2
FITTED_LEVEL = 0.01


def squared_errors(w: dict, raters: int = RATERS) -> np.ndarray:
    """e_i = (μ_i − f_i)² + σ_i² / r for a bench world (its people's truth, its judge's rows p and q)."""
    truth = np.asarray(w["truth"], float)
    mu = truth[:, 0] - truth[:, 1]
    one = truth[:, 0] + truth[:, 1] - mu ** 2                        # one person's variance on the pair
    return (mu - judge_scores(w)) ** 2 + one / raters


def judge_scores(w: dict) -> np.ndarray:
    """The judge's score per pair as the app stores it from the rows the bench imports (bench/worlds.judge_rows:
    p in true order, q in the swapped order's own terms): analysis.lmra.combine_orders."""
    return np.array([combine_orders(p, q).score for p, q in zip(w["p"], w["q"], strict=True)])


def judge_uncertainty(w: dict) -> np.ndarray:
    """The judge's uncertainty per pair as the live design reads it from those rows (analysis.active)."""
    rows = judge_rows(w)
    return uncertainties_of([{k: r[k] for k in PROBABILITY_FIELDS} for r in rows], judge_scores(w))


def ratio(e: np.ndarray, weight: np.ndarray) -> float:
    """Pairs a design with π ∝ weight keeps for a uniform sample's one, at equal variance."""
    return float(np.mean(e / weight) * np.mean(weight) / np.mean(e))


def oracle(e: np.ndarray) -> float:
    return ratio(e, np.sqrt(e))


def rule(e: np.ndarray, u: np.ndarray, tau: float) -> float:
    root = np.sqrt(np.clip(u, 0, None))
    return ratio(e, (1 - tau) * root / root.mean() + tau)


def best_of(e: np.ndarray, *keys: np.ndarray, bins: int) -> float:
    """R of w = √E(e | the keys' bins): the least R any rule of these keys reaches (up to the binning). Each key is
    cut into `bins` bins of equal count; the cells are their product."""
    cell = np.zeros(len(e), int)
    for key in keys:
        edges = np.quantile(key, np.linspace(0, 1, bins + 1)[1:-1])
        cell = cell * bins + np.searchsorted(edges, key, side="right")
    mean = np.bincount(cell, weights=e) / np.maximum(np.bincount(cell), 1)
    return ratio(e, np.sqrt(np.maximum(mean[cell], 1e-12)))


def _features(u: np.ndarray, f: np.ndarray) -> np.ndarray:
    root, size = np.sqrt(np.clip(u, 0, None)), np.abs(f)
    return np.column_stack([np.ones_like(root), root, size, root * size])


def fitted_weight(rng: np.random.Generator, truth: np.ndarray, f: np.ndarray, u: np.ndarray,
                  pairs: int = FITTED_PAIRS) -> tuple[np.ndarray, bool]:
    """The `fitted` rule's weights over every pair, and whether it leaned on the judge: `pairs` pairs drawn
    uniformly, each rated by RATERS simulated people, their squared errors (Y − f)² regressed on _features."""
    taken = rng.choice(len(f), pairs, replace=False)
    cut = truth[taken].cumsum(axis=1)
    said = np.minimum((rng.random((pairs, RATERS, 1)) > cut[:, None, :]).sum(axis=2), 2)
    y = np.array([1.0, -1.0, 0.0])[said].mean(axis=1)
    squared = (y - f[taken]) ** 2
    x = _features(u[taken], f[taken])
    beta = np.linalg.lstsq(x, squared, rcond=None)[0]
    left, total = float(np.sum((squared - x @ beta) ** 2)), float(np.sum((squared - squared.mean()) ** 2))
    k = int(np.linalg.matrix_rank(x)) - 1                   # a judge whose score never varies: fewer columns
    if k < 1:
        return np.ones(len(f)), False
    p = stats.f.sf((total - left) / k / (left / (pairs - k - 1)), k, pairs - k - 1) if left > 0 else 0.0
    if not p < FITTED_LEVEL:
        return np.ones(len(f)), False
    w = np.sqrt(np.maximum(_features(u, f) @ beta, 0.05 * squared.mean()))
    return (1 - FITTED_MIX) * w / w.mean() + FITTED_MIX, True


def world_bounds(make, pairs: int, seeds: range) -> dict[str, float]:
    """Mean over seeded worlds: the oracle's R, the rule's R at its best τ of the live mixes, and that τ."""
    got: dict[str, list[float]] = {k: [] for k in ("oracle", "rule", "tau", "u", "u_f", "fitted", "leaned")}
    for seed in seeds:
        w = make(np.random.default_rng([seed, pairs]), pairs)
        e, u, f = squared_errors(w), judge_uncertainty(w), judge_scores(w)
        by_tau = {tau: rule(e, u, tau) for tau in LIVE_FLOORS}
        best = min(by_tau, key=by_tau.__getitem__)
        weight, leaned = fitted_weight(np.random.default_rng([seed, pairs, 1]), np.asarray(w["truth"]), f, u)
        for key, value in (("oracle", oracle(e)), ("rule", by_tau[best]), ("tau", best), ("u", best_of(e, u, bins=20)),
                           ("u_f", best_of(e, u, np.abs(f), bins=5)), ("fitted", ratio(e, weight)),
                           ("leaned", float(leaned))):
            got[key].append(value)
    out = {k: float(np.mean(v)) for k, v in got.items()}
    return {**out, "fitted_max": float(np.max(got["fitted"]))}


def run(studies: int = 20) -> list[str]:
    lines = [f"bound on the adaptive design's cost, {RATERS} raters a pair, mean over {studies} seeded worlds each "
             "(oracle: π ∝ √E(Y − f)²; rule: π ∝ √u mixed with uniform at its best τ of the live mixes; best of u, "
             "of u and |f|: π ∝ √E(e | their bins); fitted: from 150 rated pairs, see the module's docstring):"]
    for label, seed0, worlds in (("", 5300, LINES), ("held-out ", 7100, HELD_OUT), ("fresh ", 9100, FRESH),
                                 ("registered ", 9600, REGISTERED)):
        for name, make, pairs, _budget in worlds:
            b = world_bounds(make, pairs, range(seed0, seed0 + studies))
            lines.append(f"  {label}{name} ({pairs} pairs): oracle {b['oracle']:.2f}x, rule {b['rule']:.2f}x "
                         f"(τ ≈ {b['tau']:.1f}), best of u {b['u']:.2f}x, of u and |f| {b['u_f']:.2f}x, fitted "
                         f"{b['fitted']:.2f}x (worst {b['fitted_max']:.2f}x, leaned in {b['leaned']:.0%})")
    return lines


if __name__ == "__main__":
    for line in run(int(sys.argv[1]) if len(sys.argv) > 1 else 20):
        print(line, flush=True)
