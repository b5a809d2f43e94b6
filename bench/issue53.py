"""Issue 53's measurement, through serving (bench/through_serving.py's studies: the app's session functions on
a real SQLite file per study, the worlds of bench/worlds.py whose truth gives H): in each world, the share
of studies whose anytime interval for H ever excluded the true H, and, for the adaptive design, how many of
the studies that stopped themselves at a target width held H at the stop.

"Ever": the uniform designs' interval is a running intersection, so its end decides (through_serving's
coverage_study, which also looks after the 30th complete pair); the adaptive design's asymptotic part is not
intersected past its tame prefix (analysis.running_adaptive.INTERSECT) and is used only after its burn-in (trusted_pairs), so its
whole path is rebuilt from the study's file at the end with the app's own pieces (decided_prefix, adaptive_terms, envelope,
anytime_running with the trusted flags): the interval it
reported after each decided pair of the prefix, from the 2nd rated pair on, as harm.ppi.cs gives it.

`.venv/bin/python -m bench.issue53 [coverage|stop] [a:b] [--seeds a:b]`: lines a:b of a part, studies
by seed (so that parts of a line can run side by side and be pooled).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from bench.through_serving import DESIGNS, coverage_study, crowd, start, stop_study
from bench.worlds import WORLDS, make_world
from fairval.analysis.active import adaptive_terms
from fairval.analysis.running_adaptive import INTERSECT, tame_intersection, tame_least, trusted_pairs
from fairval.analysis.sequential import anytime_running
from fairval.annotate.adaptive.estimate import TYPICAL_SPAN, decided_prefix, design_planned, envelope, least_chances
from fairval.annotate.results.numbers import completed_pairs, load_study_data, main_judge, scored_ratings

STUDY = "bench"
# (world, design, raters per pair, pairs, pairs to people): the four worlds
COVERAGE = [("clear pairs", "all pairs", 1, 200, 200),            # every pair rated by 1 rater
            ("clear pairs", "uniform --n", 1, 200, 190),          # 190 of 200 rated once
            ("judge at 0.5", "uniform --n", 3, 200, 100), ("judge at 0.5", "adaptive", 3, 200, 100),
            ("sure and wrong on 25%", "uniform --n", 3, 200, 100), ("sure and wrong on 25%", "adaptive", 3, 200, 100)]
# (world, design): 400 pairs, 200 to people, 3 raters per pair, stopping itself at width 0.15, checked at every pair
STOPS = [("sure and wrong on 25%", "adaptive"), ("judge at 0.5", "adaptive"), ("sure of 80%", "adaptive"),
         ("sure of 80%", "uniform --n"), ("sure and wrong on 25%", "uniform --n")]
STOP = {"pairs": 400, "n": 200, "target": 0.15, "look_every": 1}


def adaptive_path(db) -> tuple[np.ndarray, np.ndarray]:
    """The adaptive design's anytime interval after each decided pair of the final prefix, as
    annotate.adaptive.estimate.adaptive_ppi computes the last of them (NaN before the 2nd rated pair)."""
    data = load_study_data(db, STUDY)
    sample, decisions = data.study.recorded.human_sample, data.decisions
    model = main_judge(data)
    judge = data.lmra[data.lmra["model"] == model].set_index("item_id")["score"].dropna()
    pool = judge.reindex(decisions["item_id"])
    m = float(pool.mean())
    prefix = decided_prefix(decisions, completed_pairs(scored_ratings(data), data.study.settings.raters_per_item))
    kept = prefix["kept"].to_numpy(bool)
    least = least_chances(prefix, sample)
    found = adaptive_terms(prefix["human"].to_numpy(float), pool.reindex(prefix["item_id"]).to_numpy(float),
                           prefix["chance"].to_numpy(float), kept, m, least)
    lower, upper = envelope(m, sample["budget"], len(pool))
    tame = tame_least(sample["budget"], len(pool))
    low, high = anytime_running(found.terms, lower=lower, upper=upper, planned=design_planned(sample, len(pool)),
                                steps=(found.lows, found.highs), means=(-1.0, 1.0), typical_span=TYPICAL_SPAN,
                                intersect=INTERSECT, trusted=trusted_pairs(kept))
    low, high = tame_intersection(low, high, least, tame=tame)
    early = np.cumsum(kept) < 2
    low[early], high[early] = math.nan, math.nan
    return np.maximum(low, -1.0), np.minimum(high, 1.0)


def adaptive_coverage(folder: Path, world: str, raters: int, seed: int, *, pairs: int, n: int) -> dict:
    rng = np.random.default_rng([seed, raters, DESIGNS.index("adaptive")])
    w = make_world(np.random.default_rng(seed), world, pairs)
    db = start(folder / f"i53-{WORLDS.index(world)}-{seed}-{raters}.sqlite", w, "adaptive", raters, n=n, seed=seed)
    try:
        crowd(db, w, rng)
        low, high = adaptive_path(db)
    finally:
        db.close()
    shown = ~np.isnan(low)
    missed = shown & ((low > w["H"]) | (high < w["H"]) | (low > high))
    return {"excluded": bool(missed.any()), "looks": int(shown.sum())}


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval for k of n (the Monte-Carlo error of a share)."""
    if not n:
        return (math.nan, math.nan)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(centre - half, 0.0), min(centre + half, 1.0))


def run(folder, quick: bool = False, parts=("coverage", "stop"), lines: slice = slice(None),
        seeds: slice | None = None):
    studies = range(1) if quick else range(200)
    chosen = studies if seeds is None else range(*seeds.indices(1 << 30))
    coverage, stops = (COVERAGE[0:4:3], STOPS[2:3]) if quick else (COVERAGE[lines], STOPS[lines])
    for world, design, raters, pairs, n in coverage if "coverage" in parts else ():
        found = [adaptive_coverage(folder, world, raters, seed, pairs=pairs, n=n) if design == "adaptive" else
                 coverage_study(folder, world, design, raters, seed, pairs=pairs, n=n, mid=30) for seed in chosen]
        k = sum(r["excluded"] for r in found)
        low, high = wilson(k, len(found))
        yield (f"issue 53, {world}, {design} ({n} of {pairs} pairs to people), {raters} rater(s) per pair: H's anytime "
               f"interval ever excluded the true H in {k} of {len(found)} studies ({k / len(found):.1%}, 95% CI "
               f"{low:.1%}–{high:.1%}); seeds {chosen.start}:{chosen.stop}")
    for world, design in stops if "stop" in parts else ():
        found = [stop_study(folder, world, design, seed, **STOP) for seed in chosen]
        stopped = [r for r in found if r["stopped"]]
        k = sum(r["covered"] for r in stopped)
        low, high = wilson(k, len(stopped))
        yield (f"issue 53, {world}, {design} ({STOP['n']} of {STOP['pairs']} pairs), 3 raters per pair, stopping itself "
               f"at width {STOP['target']} (checked at every complete pair): stopped in {len(stopped)} of {len(found)}, "
               f"H inside the interval at {k} of {len(stopped)} stops (95% CI {low:.1%}–{high:.1%}); median "
               f"judgments {np.median([r['judgments'] for r in found]):,.0f}, mean "
               f"{np.mean([r['judgments'] for r in found]):,.0f}; seeds {chosen.start}:{chosen.stop}")


if __name__ == "__main__":
    import sys
    import tempfile

    from bench.slices import parse

    got = parse(sys.argv[1:], ("coverage", "stop"))
    with tempfile.TemporaryDirectory() as tmp:
        for line in run(Path(tmp), quick=got["quick"], parts=got["parts"], lines=got["lines"], seeds=got["seeds"]):
            print(line, flush=True)
