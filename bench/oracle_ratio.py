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

    .venv/bin/python -m bench.oracle_ratio [studies]
"""
from __future__ import annotations

import sys

import numpy as np

from bench.adaptive_cost import FRESH, HELD_OUT, LINES, REGISTERED
from bench.worlds import judge_rows
from fairval.analysis.active import LIVE_FLOORS, uncertainties_of
from fairval.analysis.lmra import combine_orders
from fairval.annotate.material.importers import PROBABILITY_FIELDS

RATERS = 3


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


def world_bounds(make, pairs: int, seeds: range) -> dict[str, float]:
    """Mean over seeded worlds: the oracle's R, the rule's R at its best τ of the live mixes, and that τ."""
    got = {"oracle": [], "rule": [], "tau": []}
    for seed in seeds:
        w = make(np.random.default_rng([seed, pairs]), pairs)
        e, u = squared_errors(w), judge_uncertainty(w)
        by_tau = {tau: rule(e, u, tau) for tau in LIVE_FLOORS}
        best = min(by_tau, key=by_tau.__getitem__)
        got["oracle"].append(oracle(e))
        got["rule"].append(by_tau[best])
        got["tau"].append(best)
    return {k: float(np.mean(v)) for k, v in got.items()}


def run(studies: int = 20) -> list[str]:
    lines = [f"bound on the adaptive design's cost, {RATERS} raters a pair, mean over {studies} seeded worlds each "
             "(oracle: π ∝ √E(Y − f)²; rule: π ∝ √u mixed with uniform at its best τ of the live mixes):"]
    for label, seed0, worlds in (("", 5300, LINES), ("held-out ", 7100, HELD_OUT), ("fresh ", 9100, FRESH),
                                 ("registered ", 9600, REGISTERED)):
        for name, make, pairs, _budget in worlds:
            b = world_bounds(make, pairs, range(seed0, seed0 + studies))
            lines.append(f"  {label}{name} ({pairs} pairs): oracle {b['oracle']:.2f}x, rule {b['rule']:.2f}x "
                         f"(τ ≈ {b['tau']:.1f})")
    return lines


if __name__ == "__main__":
    for line in run(int(sys.argv[1]) if len(sys.argv) > 1 else 20):
        print(line, flush=True)
