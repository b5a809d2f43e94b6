"""Active sampling and anytime-valid stopping, checked the way a methods paper would: simulated studies.

The world: N = 3,000 response pairs. Most pairs are clear "no difference" cases (004's data: harmful
differences are rare), the rest contested; each pair has a true answer distribution over A, B, C, and
its human score is the mean of 3 raters' draws (+1 A, −1 B, 0 C). The judge sees each pair in both
orders with noise on the true logits (more noise, lower ρ with the mean of many people) and its
probabilities are combined as in 004 App. H. H is the mean expected human score over the N pairs.

For judges of ρ ≈ 0.95, 0.8 and 0.5 it reports
- human judgments needed for a target width: people only, uniform PPI++ (analysis.ppi) and active
  (analysis.active), from mean widths at 100–800 pairs interpolated in log–log;
- coverage of every 95% interval over the simulated studies at 300 pairs;
- coverage when the researcher looks after every completed pair and stops at the first look where the
  width reaches the target: the anytime interval (analysis.sequential) and, beside it, the fixed-n
  interval of the same running estimate under the same rule;
- the same when the researcher stops at the first look whose interval excludes 0 (a "finding") in
  studies with no harm either way on average: the rule under which a fixed-n interval looked at again
  and again covers far less often;
- time-uniform coverage in three worlds (WORLDS): the share of studies whose running interval ever
  excludes the true H, looking after every pair from the first (the betting confidence sequence the app
  uses) and from the second (the fixed-n interval, the control), and how many had zero width at any look.
"""
from __future__ import annotations

import math

import numpy as np

from fairval.analysis.active import (
    DEFAULT_FLOOR,
    active_ppi_mean,
    choose_floor,
    inclusion_probabilities,
    judge_uncertainties,
    ppi_terms,
    tuned_lambda,
)
from fairval.analysis.judge_validity import Z95
from fairval.analysis.ppi import ppi_mean
from fairval.analysis.sequential import running_interval

PAIRS, RATERS = 3_000, 3
JUDGES = {0.95: 0.8, 0.8: 1.5, 0.5: 2.6}          # target ρ → noise on the judge's logits
# Worlds chosen to break the method as well as to suit it: 004's (85% clear pairs), many contested pairs,
# and a judge whose stated uncertainty is unrelated to its error (its u shuffled across pairs).
WORLDS = {"clear pairs": {"clear": 0.85}, "contested pairs": {"clear": 0.35},
          "uncertainty unrelated to error": {"clear": 0.85, "unrelated": True}}
SIZES = (100, 200, 400, 800)
PILOT = 100                     # pairs of an earlier study (same world, same judge) rated by people


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def study(rng: np.random.Generator, noise: float, *, pairs: int = PAIRS, clear: float = 0.85,
          centre: float = 0.3, unrelated: bool = False) -> dict:
    """One simulated pair study: expected human score mu, observed 3-rater mean y, judge score f, and the
    judge's uncertainty u (from its probabilities in both orders), per pair."""
    z = rng.normal(centre, 1.0, pairs)       # centre 0: no harm either way, on average
    plain = rng.random(pairs) < clear
    logits = np.stack([np.where(plain, 0.3 * z, 1.5 * z), np.where(plain, -0.3 * z, -1.5 * z),
                       np.where(plain, 4.0, 0.0)], axis=1)
    truth = _softmax(logits)
    draws = (rng.random((pairs, RATERS))[:, :, None] > truth.cumsum(1)[:, None, :]).sum(2)
    y = np.select([draws == 0, draws == 1], [1.0, -1.0], 0.0).mean(1)
    p = _softmax(logits + rng.normal(0, noise, (pairs, 3)))          # true order
    q = _softmax(logits + rng.normal(0, noise, (pairs, 3)))          # swapped order, in true terms
    r = np.minimum(p, q)
    r = r / r.sum(1, keepdims=True)
    u = judge_uncertainties(p, q)
    return {"mu": truth[:, 0] - truth[:, 1], "y": y, "f": r[:, 0] - r[:, 1], "u": rng.permutation(u) if unrelated else u,
            "r": r, "votes": draws, "truth": truth}


def pilot(rng, rho: float, world: str) -> dict:
    """An earlier, smaller study of the same world and judge, PILOT of whose pairs people rated (drawn
    uniformly): each pair's judge uncertainty and residual y − λ f, all choose_floor sees."""
    s = study(rng, JUDGES[rho], pairs=3 * PILOT, **WORLDS[world])
    rated = rng.choice(len(s["y"]), PILOT, replace=False)
    y, f = s["y"][rated], s["f"][rated]
    lam = tuned_lambda(y, f, np.ones(PILOT), s["f"])
    return {"u": s["u"][rated], "residual": y - lam * f}


def _designs(rng, s: dict, n: int, evidence: dict) -> dict:
    """The four 95% intervals from a human budget of n pairs: active with the default mix and with the
    mix chosen from a pilot (evidence)."""
    big_n = len(s["y"])
    drawn = np.zeros(big_n, bool)
    drawn[rng.choice(big_n, n, replace=False)] = True
    y = s["y"][drawn]
    half = Z95 * y.std(ddof=1) / math.sqrt(n)
    out = {"people only": [y.mean() - half, y.mean() + half],
           "uniform PPI++": ppi_mean(s["y"][drawn], s["f"][drawn], s["f"][~drawn]).ci}
    chosen = choose_floor(evidence["u"], evidence["residual"], s["u"], n).floor
    for name, floor in (("active", DEFAULT_FLOOR), ("active, pilot mix", chosen)):
        pi = inclusion_probabilities(s["u"], n, floor=floor)
        xi = rng.random(big_n) < pi
        out[name] = active_ppi_mean(s["y"][xi], s["f"][xi], pi[xi], s["f"], pi).ci
    return out


def sizes_and_coverage(rho: float, studies: int, seed: int = 0, target: float = 0.05,
                       world: str = "clear pairs") -> dict:
    rng = np.random.default_rng(seed)
    widths = {n: {} for n in SIZES}
    covered, realised, floors = {}, [], []
    for k in range(studies):
        s = study(rng, JUDGES[rho], **WORLDS[world])
        evidence = pilot(rng, rho, world)
        realised.append(np.corrcoef(s["f"], s["mu"])[0, 1])
        truth = s["mu"].mean()
        for name, ci in _designs(rng, s, 300, evidence).items():
            covered.setdefault(name, []).append(ci[0] <= truth <= ci[1])
        floors.append(choose_floor(evidence["u"], evidence["residual"], s["u"], 300).floor)
        if k < max(studies // 5, 20):               # widths vary little from study to study
            for n in SIZES:
                for name, ci in _designs(rng, s, n, evidence).items():
                    widths[n].setdefault(name, []).append(ci[1] - ci[0])
    needed = {}
    for name in covered:
        log_n = np.log(SIZES)
        log_w = np.log([np.mean(widths[n][name]) for n in SIZES])
        slope, intercept = np.polyfit(log_n, log_w, 1)
        needed[name] = RATERS * math.exp((math.log(target) - intercept) / slope)
    return {"rho": float(np.mean(realised)), "judgments": needed, "median_floor": float(np.median(floors)),
            "coverage": {name: float(np.mean(v)) for name, v in covered.items()}}


def _sequential_terms(rng, s: dict, budget: int, active: bool) -> tuple[np.ndarray, float, float]:
    """Per-pair terms of the running estimate (analysis.active.ppi_terms), in the order pairs complete,
    the truth, and the bounds the terms cannot leave ([m − 2 w_max, m + 2 w_max], as the app uses)."""
    big_n = len(s["y"])
    pi = (inclusion_probabilities(s["u"], budget, floor=DEFAULT_FLOOR) if active else np.full(big_n, budget / big_n))
    drawn = np.flatnonzero(rng.random(big_n) < pi)
    order = rng.permutation(drawn)                                # raters finish pairs in no set order
    w = pi.sum() / (big_n * pi[order])
    m, reach = float(s["f"].mean()), 2 * pi.sum() / (big_n * pi.min())
    return ppi_terms(s["y"][order], s["f"][order], w, m), float(s["mu"].mean()), (m - reach, m + reach)


def _running(terms: np.ndarray, bounds: tuple[float, float], planned: int) -> tuple[np.ndarray, ...]:
    """After each pair: the running mean, the anytime interval's ends (the betting sequence the app
    uses, bets sized for the planned sample, cut to H's range [−1, 1]), and the fixed-n interval's
    half-width (the control)."""
    low, high = running_interval(terms, lower=bounds[0], upper=bounds[1], planned=planned)
    low, high = np.maximum(low, -1), np.minimum(high, 1)
    t = np.arange(1, len(terms) + 1)
    mean = np.cumsum(terms) / t
    sd = np.sqrt(np.maximum(np.cumsum(terms ** 2) / t - mean ** 2, 0) * t / np.maximum(t - 1, 1))
    return mean, low, high, Z95 * sd / np.sqrt(t)


def stopping(rho: float, studies: int, seed: int = 1, budget: int = 900, target: float = 0.05,
             first_look: int = 20, rule: str = "width", world: str = "clear pairs") -> dict:
    """Coverage when the researcher looks after every completed pair and stops at the first look where
    the width is ≤ target (rule "width"), or where the interval excludes 0, a "finding" (rule "finding", in
    studies with no harm either way on average); else at the end of the sample."""
    rng = np.random.default_rng(seed)
    out: dict[str, list] = {}
    for _ in range(studies):
        s = study(rng, JUDGES[rho], centre=0.3 if rule == "width" else 0.0, **WORLDS[world])
        for design in ("uniform PPI++", "active"):
            terms, truth, bounds = _sequential_terms(rng, s, budget, design == "active")
            mean, low, high, fixed = _running(terms, bounds, budget)
            t = np.arange(1, len(terms) + 1)
            for name, lo, hi in ((f"{design}, anytime", low, high), (f"{design}, fixed-n", mean - fixed, mean + fixed)):
                stop = hi - lo <= target if rule == "width" else (lo > 0) | (hi < 0)
                ok = np.flatnonzero((t >= first_look) & stop)
                at = ok[0] if len(ok) else len(terms) - 1
                out.setdefault(name, []).append((lo[at] <= truth <= hi[at], at + 1))
    return {name: {"coverage": float(np.mean([c for c, _ in v])), "pairs": float(np.median([a for _, a in v]))}
            for name, v in out.items()}


def time_uniform(rho: float, studies: int, seed: int = 7, budget: int = 100, world: str = "clear pairs",
                 pairs: int = 500) -> dict:
    """The share of studies whose running interval ever excludes the true H, looking after every pair
    from the first (the anytime interval) and from the second (the fixed-n interval, the control); and
    the share with an interval of zero width at any look."""
    rng = np.random.default_rng(seed)
    missed: dict[str, list] = {}
    for _ in range(studies):
        s = study(rng, JUDGES[rho], pairs=pairs, **WORLDS[world])
        for design in ("uniform PPI++", "active"):
            terms, truth, bounds = _sequential_terms(rng, s, budget, design == "active")
            mean, low, high, fixed = _running(terms, bounds, budget)
            missed.setdefault(f"{design}, anytime", []).append(bool(np.any((low > truth) | (high < truth))))
            missed.setdefault(f"{design}, anytime zero width", []).append(bool(np.any(high - low <= 0)))
            peek = slice(1, None)
            missed.setdefault(f"{design}, fixed-n", []).append(
                bool(np.any(np.abs(mean[peek] - truth) > fixed[peek])))
    return {name: float(np.mean(v)) for name, v in missed.items()}


def run(folder, quick: bool = False) -> list[str]:
    # --quick is the suite's smoke run: it shows every line is computed and printed; the coverage it claims
    # is the full run's (500 studies). The width fit of clear pairs takes 20 studies either way.
    studies = 20 if quick else 500
    lines = []
    for rho in JUDGES:
        found_rho = None
        for world in WORLDS:
            found = sizes_and_coverage(rho, studies if world == "clear pairs" else studies // 5, world=world)
            found_rho = found_rho or found["rho"]
            j = found["judgments"]
            lines.append(
                f"judge ρ {found['rho']:.2f}, {world}: judgments for a 0.05-wide interval on H: people only "
                f"{j['people only']:,.0f}, uniform PPI++ {j['uniform PPI++']:,.0f}, active (mix {DEFAULT_FLOOR}) "
                f"{j['active']:,.0f} ({j['active'] / j['uniform PPI++']:.2f}x uniform), active with the mix chosen "
                f"from a {PILOT}-pair pilot (median {found['median_floor']:.2f}) {j['active, pilot mix']:,.0f} "
                f"({j['active, pilot mix'] / j['uniform PPI++']:.2f}x uniform); coverage at 300 pairs over "
                f"{studies if world == 'clear pairs' else studies // 5} studies: "
                + ", ".join(f"{k} {v:.3f}" for k, v in found["coverage"].items()))
        stop = stopping(rho, studies)
        lines.append(
            f"judge ρ {found_rho:.2f}, stopping at the first look with width ≤ 0.05 (looks after every pair): "
            + "; ".join(f"{k} coverage {v['coverage']:.3f} (median stop {v['pairs']:.0f} pairs)" for k, v in stop.items()))
        found = stopping(rho, studies, rule="finding")
        lines.append(
            f"judge ρ {found_rho:.2f}, no harm on average, stopping at the first look whose interval excludes 0: "
            + "; ".join(f"{k} coverage {v['coverage']:.3f}" for k, v in found.items()))
        for world in WORLDS:
            missed = time_uniform(rho, studies, world=world)
            lines.append(
                f"judge ρ {found_rho:.2f}, {world}, 500 pairs, budget 100, looking after every pair: share of "
                f"{studies} studies whose interval ever excludes the true H: "
                + "; ".join(f"{k} {v:.3f}" for k, v in missed.items()))
    return lines
