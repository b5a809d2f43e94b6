"""A study under the adaptive design that stops itself at a width stops on an interval that holds
(issue 53). The sequence is the stopping rule's own (analysis.running_adaptive, stepped one decided pair at a
time as the app keeps it), the chances those of the design's leanest mix (τ = 0.1: analysis.active.
inclusion_probabilities), H from the world's truth, written here.

World "sure and wrong": 60% of pairs clear, the judge sure and right; 15% contested, the judge unsure and
near people; 25% where people lean A (Dirichlet(8, 1, 1)) and the judge is as sure as on the clear ones that
there is no difference. On main, 56 of 200 studies stopped at width 0.15 and 13 of those stops missed H
(23%): the running intersection of drifting asymptotic intervals narrowed where two barely overlapped.
The test allows misses at the stops up to the 99th percentile of Binomial(stops, 5%) (a rule holding 95% at
its stops fails it with probability under 1%). World "sure and right" (80% clear and sure, 20% contested and
unsure): the stop must still fire, in at least 190 of 200 studies, and hold H at as many stops. Both with the
sequence tuned to every pair and tuned to the expected stop at the target width, as the design now records it
(analysis.running_adaptive.planned_pairs: 345 decided pairs here), which narrows it where studies stop.
Since then no study stopped at 400 pairs in "sure and wrong" (0 of 200: vacuous); it now runs at 1,000 pairs,
500 to people, and must stop in at least 150 of 200 (measured: 200 and 200, 1 and 1 missing H, 0.5%, Wilson 95%
0.1-2.8%). Monte-Carlo error: with 200 stops the bound is 18 misses; a rule holding H at 90% of its stops fails
it with probability 0.63, one holding 95% with 0.6%. Since issue 53's burn-in each study is told the least chance
and the tame least as the app records and sets them (the rule's least chance over the pairs, not the lowest any
mix allows; tame_least, not the default 2.0 under which no prefix is tame); the betting part now runs at
every pair (about 5x the CPU), so "sure and wrong" runs 100 studies (bound 10 misses at 100 stops): with the
burn-in 100 and 100 stopped, 1 and 3 missing H (200 studies: 5 and 8 of 200; main 9 of 200)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from fairval.analysis import running_adaptive
from fairval.analysis.active import LIVE_PRIOR, envelope_reach, inclusion_probabilities

PAIRS, BUDGET, TARGET, STUDIES, TAU = 400, 200, 0.15, 200, 0.1
# "sure and wrong" at 400 pairs: no study narrowed to 0.15 (0 of 200 stops, a vacuous check) since the interval
# stopped intersecting; at 1,000 pairs, 500 to people, all 200 stopped (after 660-940 decided pairs; 1 missed H).
WRONG_PAIRS, WRONG_BUDGET, MIN_STOPS, WRONG_STUDIES = 1000, 500, 75, 100
SCORES = np.array([1.0, -1.0, 0.0])          # A, B, C


def world(rng, wrong: bool, pairs: int = PAIRS):
    PAIRS = pairs  # the world's size
    kind = rng.choice(3, PAIRS, p=[0.6, 0.15, 0.25] if wrong else [0.8, 0.2, 0.0])
    truth = np.where((kind == 0)[:, None], [0.015, 0.015, 0.97],
                     np.where((kind == 1)[:, None], rng.dirichlet([1, 1, 1], PAIRS), rng.dirichlet([8, 1, 1], PAIRS)))
    mu = truth[:, 0] - truth[:, 1]
    judge = np.clip(np.where(kind == 1, mu + rng.normal(0, 0.25, PAIRS), 0.0), -0.5, 0.5)
    uncertainty = np.where(kind == 1, rng.uniform(0.5, 0.75, PAIRS), 0.05)
    return truth, float(mu.mean()), judge, uncertainty


def study(seed: int, wrong: bool, planned: int = PAIRS, pairs: int = PAIRS, budget: int = BUDGET, tau: float = TAU,
          target: float = TARGET, make=world) -> tuple[bool, bool]:
    """(stopped, H inside the interval at the stop), the chances those of mix tau; the least chance and the
    tame least as the app records and sets them (annotate.adaptive.next_pair: the rule's least chance over the
    design's pairs; analysis.running_adaptive.tame_least)."""
    PAIRS, BUDGET = pairs, budget  # the study's size
    rng = np.random.default_rng([seed, wrong])
    truth, h, judge, uncertainty = make(rng, wrong, PAIRS)
    chance = inclusion_probabilities(uncertainty, BUDGET, floor=tau)
    least, m, reach = float(chance.min()), float(judge.mean()), envelope_reach(BUDGET, PAIRS)
    state = running_adaptive.start(judge_mean=m, lower=m - reach, upper=m + reach, planned=planned, typical_span=4.0,
                                   tame=running_adaptive.tame_least(BUDGET, PAIRS))
    for i in rng.permutation(PAIRS):
        kept = bool(rng.random() < chance[i])
        human = None
        if kept:                # three raters, each a draw from the pair's truth
            human = float(SCORES[np.minimum((rng.random((3, 1)) > truth[i].cumsum()).sum(1), 2)].mean())
        state = running_adaptive.step(state, kept=kept, human=human, judge=judge[i], chance=chance[i], least=least)
        ci = running_adaptive.interval(state).ci
        if ci is not None and ci[1] - ci[0] <= target:
            return True, ci[0] <= h <= ci[1]
    return False, False


@pytest.mark.parametrize("planned", [PAIRS, running_adaptive.planned_pairs(BUDGET, PAIRS, TARGET)],
                         ids=["tuned to every pair", "tuned to the expected stop"])
def test_the_stops_hold_h_where_the_judge_is_sure_and_wrong_and_still_come_where_it_is_right(planned):
    assert planned in (PAIRS, 345)          # 345 at 1,000 pairs too: it depends on pairs / budget alone
    wrong_planned = WRONG_PAIRS if planned == PAIRS else planned
    found = [study(seed, wrong=True, planned=wrong_planned, pairs=WRONG_PAIRS, budget=WRONG_BUDGET)
             for seed in range(WRONG_STUDIES)]
    stops = sum(s for s, _ in found)
    assert stops >= MIN_STOPS, f"only {stops} of {WRONG_STUDIES} studies stopped: the coverage check would be vacuous"
    missed = sum(s and not c for s, c in found)
    assert missed <= binom.ppf(0.99, stops, 0.05), f"{missed} of {stops} stops missed H"
    found = [study(seed, wrong=False, planned=planned) for seed in range(STUDIES)]
    assert sum(s for s, _ in found) >= 190 and sum(c for _, c in found) >= 190


def test_at_the_prior_mix_the_stops_hold_h_where_the_judge_is_sure_and_wrong():
    """Through serving the misses came where the design stayed near its prior mix (τ = LIVE_PRIOR, 0.7): every
    chance at or above the tame least, so the asymptotic part's intervals were used, and intersected, from the
    30th decided pair, before the rare large terms of the 25% where the judge is sure and wrong were in (about 12
    pairs kept by then); its early interval, from a variance estimated without them, excluded H and held later
    intervals off it (bench/README.md, issue 53). Here, with those chances (400 pairs, 200 to people), stopping at
    0.25 (almost every study stops, after about 100 kept pairs): on main at dff0d03 7 of the 200 stops missed H
    (965 of 1,000 held over seeds 0-999, 96.5%); with the burn-in (analysis.running_adaptive.BURN_IN: the betting
    part alone until 50 pairs are complete) 1 of 200 (992 of 1,000, 99.2%). Allowed: 2% of the stops. Monte-Carlo
    error: a rule holding H at 99.2% of its stops fails this with probability 2.3%, one at 96.5% passes it with
    probability 17%. Not shown here: at a 0.15 target in this world few studies stop (81 of 1,000 with the burn-in,
    130 on main) and those that do are the ones whose variance was estimated low, so the stops held H at 65 of 81
    (80%; main 88 of 130): a width rule picks the too-narrow paths (bench/README.md, issue 53)."""
    found = [study(seed, wrong=True, planned=running_adaptive.planned_pairs(BUDGET, PAIRS, TARGET), tau=LIVE_PRIOR,
                   target=0.25) for seed in range(STUDIES)]
    stops = sum(s for s, _ in found)
    missed = sum(s and not c for s, c in found)
    assert stops >= 190, f"only {stops} of {STUDIES} studies stopped"
    assert missed <= 0.02 * stops, f"{missed} of {stops} stops missed H"


def few_wrong(rng, wrong: bool, pairs: int):
    """A world where the design leans hard on the judge and it is sure and WRONG on a few pairs (issue 53, stop 70:
    the interval is intersected over every pair from its burn-in on, past any chance): 70% clear pairs the judge is
    sure and right about, 5% where people lean A (Dirichlet(8, 1, 1)) and the judge is as sure that there is no
    difference, 25% contested where it is unsure (uncertainty 0.5–0.75, sure ones 0.01)."""
    kind = rng.choice(3, pairs, p=[0.7, 0.05, 0.25])
    truth = np.where((kind == 0)[:, None], [0.015, 0.015, 0.97],
                     np.where((kind == 1)[:, None], rng.dirichlet([8, 1, 1], pairs), rng.dirichlet([1, 1, 1], pairs)))
    mu = truth[:, 0] - truth[:, 1]
    judge = np.clip(np.where(kind == 2, mu + rng.normal(0, 0.25, pairs), 0.0), -0.5, 0.5)
    return truth, float(mu.mean()), judge, np.where(kind == 2, rng.uniform(0.5, 0.75, pairs), 0.01)


def test_the_stops_hold_h_where_the_design_leans_and_the_judge_is_sure_and_wrong_on_a_few_pairs():
    """Leaning (τ = 0.1: the sure pairs' chance 0.62 of the uniform one, below the 0.7 under which the interval
    stopped being intersected before stop 70), 600 pairs, 300 to people, a stop at 0.15: the stops are allowed
    misses up to the 99th percentile of Binomial(stops, 5%), as above (18 of 200). Measured: 200 of 200 stopped, 2
    missed H (seeds 0-399: 6 of 400, 1.5%; intersected only over the 0.7 prefix 3 of 400; with 200 to people, the
    sure pairs' chance 0.41 of the uniform one, 6 of 287 stops, against 6 of 231)."""
    pairs, budget, studies = 600, 300, 200
    chance = inclusion_probabilities(few_wrong(np.random.default_rng(0), True, pairs)[3], budget, floor=TAU)
    assert chance.min() < 0.7 * budget / pairs           # the design leans: every interval past the 0.7 prefix
    planned = running_adaptive.planned_pairs(budget, pairs, TARGET)
    found = [study(seed, wrong=True, planned=planned, pairs=pairs, budget=budget, make=few_wrong) for seed in range(studies)]
    stops = sum(s for s, _ in found)
    missed = sum(s and not c for s, c in found)
    assert stops >= 150, f"only {stops} of {studies} studies stopped"
    assert missed <= binom.ppf(0.99, stops, 0.05), f"{missed} of {stops} stops missed H"
