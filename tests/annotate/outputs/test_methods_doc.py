"""docs/methods.md's adaptive-design paragraph is the app's own, from the study bench/methods_example.py runs
through the session functions, and every number in it is `fairval analyze --json`'s on that study (issue 53:
the page's example predated the burn-in and named the betting part first, against what `valid` states). The
paragraph names the asymptotic part within the betting part, as `valid` does, in both of the design's phases."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np

from bench.methods_example import RATERS, TARGET, adaptive_example
from bench.through_serving import STUDY, crowd, start
from bench.worlds import make_world
from fairval.analysis.running_adaptive import BURN_IN
from fairval.annotate.outputs.methods import methods_text
from fairval.annotate.results.numbers import study_numbers

DOC = Path(__file__).resolve().parents[3] / "docs" / "methods.md"


def numbers_in(text: str) -> Counter:
    """The numbers a reader sees, citation keys ([zrnic2024]), "95%" intervals and "1/its chance" left out."""
    for words in ("95% CI", "95% intervals", "1/its chance"):
        text = text.replace(words, "")
    return Counter(re.findall(r"-?\d+(?:\.\d+)?", re.sub(r"\[[a-z0-9]+\]", "", text)))


def test_the_adaptive_example_is_the_apps_paragraph_and_each_number_is_analyzes(tmp_path):
    text, numbers, h = adaptive_example(tmp_path / "example.sqlite")
    assert f"> {text}\n" in DOC.read_text(encoding="utf-8"), "docs/methods.md: rerun python -m bench.methods_example"
    harm, lmra, alpha = numbers["harm"], numbers["lmra"], numbers["questions"]["harm"]
    ppi, cs = harm["ppi"], harm["ppi"]["cs"]
    equal = lmra["by_pair_group"]["equal_error"]
    (lo, hi), width = cs["ci"], cs["ci"][1] - cs["ci"][0]
    said = [f"on {numbers['n_items']} items", f"{RATERS} raters per item",
            f"{numbers['n_ratings']} ratings from {numbers['n_raters']} raters", "random order (probability 0.5)",
            f"α = {alpha['alpha']:.2f} (95% CI {alpha['alpha_ci'][0]:.2f} to {alpha['alpha_ci'][1]:.2f})",
            f"Pearson's r = {lmra['pearson_r']:.2f} (95% CI {lmra['pearson_ci'][0]:.2f} to {lmra['pearson_ci'][1]:.2f})",
            f"sign agreement {lmra['sign_agreement']:.2f} (95% CI {lmra['sign_agreement_ci'][0]:.2f} to "
            f"{lmra['sign_agreement_ci'][1]:.2f}) over {lmra['n_items']} pairs",
            f"was {harm['human']:.3f} (95% CI {harm['human_ci'][0]:.2f} to {harm['human_ci'][1]:.2f}) over "
            f"{harm['n_items_human']} pairs",
            f"H was {ppi['value']:.3f} (95% CI {ppi['ci'][0]:.2f} to {ppi['ci'][1]:.2f})",
            "Kendall's τ, one-sided, p < 0.01", "by a set mix until 30 pairs were complete",
            f"was {lo:.2f} to {hi:.2f} over {cs['n_pairs_complete']} complete pairs",
            f"used from the {cs['asymptotic_from']}th decided pair once {BURN_IN} pairs are complete",
            "half of the 5% error", "at most 5% as pairs", "whose 95% is for a number of pairs set in advance",
            f"when H's anytime interval was {lo:.2f} to {hi:.2f} (width {width:.3f}) over {cs['n_pairs_complete']} "
            f"complete pairs", f"{width:.3f} wide, within the target {cs['target_width']:g}",
            f"compared across {len(equal['group_pairs'])} group pairs",
            f"F({equal['df'][0]:.0f}, {equal['df'][1]:.1f}) = {equal['f']:.2f}, p = {equal['p_value']:.3f}"]
    for words in said:
        assert words in text, words
    # nothing else: every number the paragraph shows is one of those above
    assert numbers_in(text) == numbers_in(" ".join(said)), numbers_in(text) - numbers_in(" ".join(said))
    # the example's facts the page's reading states: a stop at the burn-in's first trusted pair, holding H
    assert cs["method"] == "asymptotic" and cs["n_pairs_complete"] == BURN_IN and width <= TARGET
    assert lo <= h <= hi and f"true H, {h:.3f}" in DOC.read_text(encoding="utf-8")


def test_the_paragraph_names_the_parts_in_valids_order_before_and_after_the_burn_in(tmp_path):
    """After the burn-in `valid` says "asymptotic: an asymptotic confidence sequence … within the exact betting
    sequence"; before it, the betting sequence with half of the error, the asymptotic one to narrow it later. The
    paragraph says each in that order (on main it named the betting part first, "within an asymptotic one", and
    before the burn-in gave the betting part all of the 5%)."""
    w = make_world(np.random.default_rng(5), "clear pairs", 160)
    for until, trusted in ((40, False), (None, True)):
        db = start(tmp_path / f"order-{until}.sqlite", w, "adaptive", 3, n=80, seed=5)
        try:
            crowd(db, w, np.random.default_rng([5, 3]), until=until)
            text, _ = methods_text(db, STUDY)
            cs = study_numbers(db, STUDY, n_boot=0).harm.ppi.cs
        finally:
            db.close()
        assert cs.method == ("asymptotic" if trusted else "betting") and cs.ci
        sentence = next(s for s in re.split(r"(?<=\.)\s+(?=[A-Z])", text) if s.startswith("H's anytime interval"))
        if trusted:
            assert cs.valid.index("an asymptotic confidence sequence") < cs.valid.index("within the exact betting")
            assert sentence.index("by an asymptotic confidence sequence") < sentence.index("within an exact betting one")
            assert "each with half of the 5% error" in sentence and "anytime-valid only asymptotically" in sentence
        else:
            assert "with 2.5% of the 5% error" in cs.valid and "narrows it" in cs.valid
            assert "by an exact betting confidence sequence [waudbysmith2024] at every decided pair with half of " \
                   "the 5% error (anytime-valid: at most a 2.5% chance of ever missing" in sentence
            assert f"used only from the 30th decided pair once {BURN_IN} pairs are complete, which this study did " \
                   "not reach" in sentence
