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

from bench.through_serving import STUDY, crowd, excludes, start
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
