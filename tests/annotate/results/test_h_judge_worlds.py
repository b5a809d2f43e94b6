"""Issue 53's Done-when, through serving, in a judge world that only a bench run showed (bench/issue53.py,
bench/README.md): a judge whose probabilities are 0.5 everywhere. Studies run through the app's own session
functions on a real SQLite file (bench/through_serving.py: arrive, give_consent, finish_instructions,
serve_next_item, record_answer); H from the world's truth (bench/worlds.py), never from the app. The line: H's
anytime interval ever excludes H in at most 5% of studies (+ Monte-Carlo error); the full 200-study run is
bench/README.md's (i53-cover). The adaptive design's lines in this world and where the judge is sure and wrong
on 25% are not tests here: at a CI size none failed with the code they guard broken (bench/README.md, i53-cover),
so they stay bench lines."""
from __future__ import annotations

from scipy.stats import binom

from bench.through_serving import coverage_study

PAIRS, SAMPLE = 200, 190


def test_a_judge_at_half_everywhere_the_interval_holds_h_though_almost_every_pair_is_rated_once(tmp_path):
    """The judge's probabilities are 0.5/0.5 on every pair in both orders (its score 0, λ gives it no weight),
    the clear-pairs world's people, 1 rater a pair, `study sample --n 190` of 200: H's interval is then the
    people's alone, and the old without-replacement form closed on the ratings as they came out. 40 studies
    (seeds 0-39), at most 5 may exclude H: a sequence missing in exactly 5% of studies exceeds that with
    probability 1.4% (one missing in 15% passes with 43%). Measured: 0 of 40 on main; with the without-replacement
    form put back (judge.py _ppi_sequence given population= and past= as before 7d0408d) 6 of 40 (seeds 6, 8, 11,
    16, 20, 26), which fails it. (The issue's world of its own: 16 of 200 on main then.)"""
    studies, limit = 40, 5
    assert binom.sf(limit, studies, 0.05) < 0.015          # a sequence at exactly 5% fails this in 1.4%
    missed = [seed for seed in range(studies) if coverage_study(tmp_path, "judge at 0.5", "uniform --n", 1, seed,
                                                                 pairs=PAIRS, n=SAMPLE, mid=30)["excluded"]]
    assert len(missed) <= limit, f"H's anytime interval excluded the true H in seeds {missed}"

