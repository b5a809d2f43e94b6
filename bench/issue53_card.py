"""Issue 53's judge-card and audit lines at the issue's sizes, on the worlds its tests write (read from tests/,
so the bench and the tests cannot drift apart), with the tests' own seeds and fresh ones (5353, 5354):

- a calibrated judge's true ECE inside the card's ECE interval (200 replicates of 200 pairs, 3 raters a pair);
- honest raters right 80% of the time flagged "no better than at random" (the flag test's two worlds; 8 studies
  each as the test has them, and 30 each with a fresh seed);
- Welch's test of equal judge error across group pairs rejecting at 5% (100 studies of 200 pairs), for a judge
  under-reporting harm for one group pair by 0.3 and for an honest one.

`.venv/bin/python -m bench.issue53_card [ece] [flag] [fair]`. Monte-Carlo error: a Wilson interval beside each
share. (The label-swap line, `lmra run --swap-groups`, is tests/annotate/judge/test_swap_groups.py.)
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

from bench.issue53 import wilson
from fairval.analysis.judge_card import confidence_numbers
from fairval.analysis.judge_fairness import error_by_group
from fairval.analysis.raters import QualityRules, rater_quality

TESTS = Path(__file__).resolve().parent.parent / "tests" / "analysis"


def _worlds(name: str):
    spec = importlib.util.spec_from_file_location(f"issue53_{name}", TESTS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _share(k: int, n: int) -> str:
    low, high = wilson(k, n)
    return f"{k} of {n} ({k / n:.1%}, 95% CI {low:.1%}–{high:.1%})"


def ece_lines():
    card = _worlds("test_judge_card_coverage")
    for seed in (54, 5354):                                     # 54: the test's seed for the calibrated judge
        rng, held = np.random.default_rng(seed), 0
        for _ in range(200):
            r, pi, people = card.world(rng, 1)
            low, high = confidence_numbers(r, people, n_boot=1, seed=0).ece_ci
            held += low <= card.true_ece(r, pi) <= high
        yield f"issue 53, a calibrated judge (seed {seed}): true ECE inside the ECE interval in {_share(held, 200)}"


def flag_lines():
    flag = _worlds("test_rater_flag")
    for seed, studies in ((53, 8), (5353, 30)):                 # 53, 8: the test's
        rng, found = np.random.default_rng(seed), []
        for n_items, per_item, n_honest, prior in flag.WORLDS.values():
            honest = flagged = 0
            for _ in range(studies):
                ratings = flag.study(rng, n_items, per_item, n_honest, prior)
                shared = ratings.groupby("item_id")["rater_id"].transform("size") > 1
                answers = ratings[shared].groupby("rater_id").size()
                for q in rater_quality(ratings, {}, QualityRules(), nominal_questions=("harm",)):
                    if q.rater_id.startswith("honest") and answers.get(q.rater_id, 0) >= 20:
                        honest += 1
                        flagged += any("no better than at random" in f for f in q.flags)
            found.append((flagged, honest))
        k, n = sum(f for f, _ in found), sum(h for _, h in found)
        yield (f"issue 53, honest raters right 80% of the time (seed {seed}, {studies} studies per world): flagged in "
               f"{found[0][0]} of {found[0][1]} and {found[1][0]} of {found[1][1]}; pooled {_share(k, n)}")


def fair_lines():
    fair = _worlds("test_judge_fairness")
    for seed in (53, 5353):                                     # 53: the test's
        for under in (0.3, 0.0):
            rng, rejected = np.random.default_rng(seed), 0
            for _ in range(100):
                human, judge, strata = fair.study(rng, under)
                rejected += error_by_group(human, judge, strata, n_boot=0, seed=0).equal_error.p_value < 0.05
            yield (f"issue 53, a judge under-reporting harm for one group pair by {under} (seed {seed}): the "
                   f"equal-error test rejected at 5% in {_share(rejected, 100)} studies of 200 pairs")


if __name__ == "__main__":
    parts = {"ece": ece_lines, "flag": flag_lines, "fair": fair_lines}
    for name in [a for a in sys.argv[1:] if a in parts] or list(parts):
        for line in parts[name]():
            print(line, flush=True)
