"""The methods paragraph of a pair study (issues 53 and 54): H is stated with what it is and its interval,
attributed to people; the estimator is named as the design computes it (inverse-probability weighted under
the adaptive design, not "PPI++"); a study that stopped itself says so and at what width; the anytime claim
carries its asymptotic caveat; no sentence leans on one that is not there ("Its …"). Studies are run through
the app's session functions (bench/through_serving.py) and the numbers compared with `analyze`'s own."""
from __future__ import annotations

import re

import numpy as np

from bench.through_serving import STUDY, crowd, start
from bench.worlds import make_world
from fairval.annotate.material.studies import load_study
from fairval.annotate.outputs.methods import methods_text
from fairval.annotate.results.numbers import study_numbers


def run_study(path, design: str, pairs: int, n: int | None, raters: int, target: float | None):
    w = make_world(np.random.default_rng(5), "clear pairs", pairs)
    db = start(path, w, design, raters, n=n, seed=5, target=target)
    crowd(db, w, np.random.default_rng([5, 1]), look_every=1)
    return db


def sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.)])\s+(?=[A-Z])", text)


def test_the_adaptive_design_names_its_estimator_states_h_and_its_stop(tmp_path):
    db = run_study(tmp_path / "a.sqlite", "adaptive", 120, 60, 3, target=1.0)
    try:
        text, cites = methods_text(db, STUDY)
        harm = study_numbers(db, STUDY, n_boot=200).harm
        stopped = load_study(db, STUDY).recorded.stopped
    finally:
        db.close()
    assert stopped, "the study should have stopped itself at width 1.0"
    assert "PPI++" not in text and "inverse-probability-weighted" in text and "zrnic2024" in cites
    assert "H is the mean, over the study's pairs, of each pair's expected human score" in text
    assert f"The rated pairs' own mean of people's scores was {harm.human:.3f}" in text
    assert "it is not an estimate of H here" in text and "From people's ratings alone" not in text
    assert "only while those pairs showed its uncertainty going with its error (Kendall's τ" in text   # the guard
    lo, hi = stopped["ci"]
    assert f"The study stopped itself when H's anytime interval was {lo:.2f} to {hi:.2f} (width {hi - lo:.3f})" in text
    # the fixed-n interval's 95% is for an n set in advance, not for a stop the data chose (issue 53, item 5)
    assert "a fixed-n interval, whose 95% is for a number of pairs set in advance, not for the stop this study" in text
    cs = harm.ppi.cs
    assert f"H's anytime interval, from people's ratings, was {cs.ci[0]:.2f} to {cs.ci[1]:.2f}" in text
    if cs.method == "asymptotic":
        assert "anytime-valid only asymptotically" in text
    assert not any(s.startswith("Its ") for s in sentences(text))


def test_every_pair_rated_the_paragraph_states_h_and_no_sentence_leans_on_a_missing_one(tmp_path):
    db = run_study(tmp_path / "u.sqlite", "all pairs", 40, None, 1, target=None)
    try:
        text, _cites = methods_text(db, STUDY)
        harm = study_numbers(db, STUDY, n_boot=200).harm
    finally:
        db.close()
    cs = harm.ppi.cs
    assert cs.ci and f"H's anytime interval, from people's ratings, was {cs.ci[0]:.2f} to {cs.ci[1]:.2f}" in text
    assert f"over {cs.n_pairs_complete} complete pairs" in text and "H as people would answer it" in text
    assert f"From people's ratings alone, H was {harm.human:.3f}" in text
    assert "stopped itself" not in text and "half of the 5% error" in text
    assert not any(s.startswith("Its ") for s in sentences(text))
    judge = next(s for s in sentences(text) if s.startswith("The LLM judge"))
    assert "interval" not in judge.split("agreed", 1)[1].replace("95% CI", "")    # the judge's sentence has no H


def test_a_uniform_sample_names_ppi_and_states_each_guarantee_as_valid_does(tmp_path):
    """Issue 53's item 5 on a uniform sample (`study sample --n 60` of 120 pairs, no stopping rule): the
    estimator is PPI++, its interval fixed-n with no claim about a stop; the anytime interval's two parts each
    spend half of the 5%, and "anytime-valid" never comes before its asymptotic caveat."""
    db = run_study(tmp_path / "n.sqlite", "uniform --n", 120, 60, 3, target=None)
    try:
        text, cites = methods_text(db, STUDY)
        harm = study_numbers(db, STUDY, n_boot=200).harm
    finally:
        db.close()
    assert harm.ppi.design == "uniform" and "angelopoulos2023" in cites
    assert f"Estimated by prediction-powered inference (PPI++): people's ratings, with the judge's scores on every pair " \
           f"as a control variate [angelopoulos2023], H was {harm.ppi.value:.3f}" in text
    assert "a fixed-n interval;" in text and "stopped itself" not in text and "set in advance" not in text
    cs = harm.ppi.cs
    assert cs.method == "asymptotic" and f"until the {cs.asymptotic_from}th pair, then an asymptotic one" in text
    assert "each with half of the 5% error" in text
    first = text.index("anytime-valid")
    assert text[first:].startswith("anytime-valid only asymptotically")
    assert "H as people would answer it" in text and "over the study's 120 pairs" not in text
