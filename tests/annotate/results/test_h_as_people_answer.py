"""H is what people would answer (issue 53): the mean over the pairs of each pair's expected score among
the people the raters are drawn from, not the mean of the ratings the study happened to get. Studies run
through the app's own session functions on a real SQLite file (bench/through_serving.py), H known from
the simulated truth (bench/worlds.py), never from the app.

With every pair rated by one rater, the old without-replacement interval closed on the realised mean
rating: on main it ever excluded H in 13 of 20 of these studies. A valid 95% sequence may do so in at
most 5% of studies; the test allows 3 of 20, which a sequence missing in exactly 5% of studies would
exceed with probability 1.6% (binomial), and the fixed one missed in 0 of 20 (and in the bench run,
bench/README.md, over 200)."""
from __future__ import annotations

import numpy as np
import pytest

from bench.issue53 import COVERAGE, adaptive_path
from bench.through_serving import STUDY, coverage_study, crowd, excludes, start
from bench.worlds import make_world
from fairval.annotate.results.numbers import study_numbers

STUDIES, ALLOWED = 20, 3


def one_study(tmp_path, seed: int) -> tuple[bool, dict]:
    w = make_world(np.random.default_rng(seed), "clear pairs", 200)
    db = start(tmp_path / f"once-{seed}.sqlite", w, "all pairs", 1, n=None, seed=seed)
    try:
        crowd(db, w, np.random.default_rng([seed, 1, 0]))
        cs = study_numbers(db, STUDY, n_boot=0).harm.ppi.cs.to_dict()
    finally:
        db.close()
    return excludes(cs, w["H"]), cs


def test_every_pair_rated_once_the_interval_holds_h_not_the_ratings_it_got(tmp_path):
    found = [one_study(tmp_path, seed) for seed in range(STUDIES)]
    missed = sum(m for m, _ in found)
    assert missed <= ALLOWED, f"H's anytime interval excluded the true H in {missed} of {STUDIES} studies"
    for _, cs in found:
        assert cs["n_pairs_complete"] == 200 and cs["ci"][1] - cs["ci"][0] > 0.05     # not closed on the ratings
        assert "H as people would answer it" in cs["valid"] and "over the study's 200 pairs" not in cs["valid"]



def test_190_of_200_pairs_rated_once_the_interval_holds_h(tmp_path):
    """Issue 53's second world (bench/issue53.py's COVERAGE line: the clear-pairs world, `study sample --n 190`
    of 200 pairs, 1 rater a pair). The issue measured 31 of 100 studies excluding H on main, bench/README 6 of
    20 at 4dc1e8c. The same rule as above: 3 misses of 20 allowed; a sequence missing H in 5% of studies
    fails it with probability 1.6%, one missing in 30% passes with 11%. (200 studies: bench/README.md.)"""
    world, design, raters, pairs, n = COVERAGE[1]
    assert (world, design, raters, pairs, n) == ("clear pairs", "uniform --n", 1, 200, 190)
    missed = sum(coverage_study(tmp_path, world, design, raters, seed, pairs=pairs, n=n, mid=30)["excluded"]
                 for seed in range(STUDIES))
    assert missed <= ALLOWED, f"H's anytime interval excluded the true H in {missed} of {STUDIES} studies"


def test_the_adaptive_path_the_bench_rebuilds_ends_where_the_app_reports(tmp_path):
    """bench/issue53.py checks the adaptive design's coverage lines on every decided pair's interval, rebuilt
    from the study's file; its last interval must be `analyze --json`'s harm.ppi.cs, or the bench's 200-study
    lines (bench/README.md) would check another sequence than the app's."""
    w = make_world(np.random.default_rng(3), "sure and wrong on 25%", 200)
    db = start(tmp_path / "path.sqlite", w, "adaptive", 3, n=100, seed=3)
    try:
        crowd(db, w, np.random.default_rng([3, 3, 4]))
        low, high = adaptive_path(db)
        cs = study_numbers(db, STUDY, n_boot=0).harm.ppi.cs.to_dict()
    finally:
        db.close()
    assert cs["ci"] == pytest.approx([low[-1], high[-1]], abs=1e-12)
    assert np.isnan(low).sum() < 10 < len(low)
