"""The live design's mix τ (analysis.active.live_floor) over many simulated studies, run decision by decision
with the app's rule: τ from the complete kept pairs before each decision, the chance from τ, the weighted
terms and their anytime interval as the numbers compute them. Where the judge is sure and right about
80% of pairs, the chances lean on it for most decisions and the interval still covers H at the stop;
where its sureness is unrelated to its error, the answers bring τ back to 1 for nearly every decision
after the first 30 complete pairs (before them the design keeps its set prior mix) and it costs at most 1.05x."""
import numpy as np
import pytest

from fairval.analysis.active import (
    FLOOR_EVERY,
    PILOT_MIN_PAIRS,
    adaptive_terms,
    inclusion_probabilities,
    judge_uncertainties,
    live_floor,
    weighted_lambda,
)
from fairval.analysis.sequential import anytime_running
from tests.annotate.adaptive.adaptive_worlds import world

PAIRS, BUDGET, TARGET = 1000, 400, 0.15


def live_study(rng: np.random.Generator, related: bool, *, hold: bool = False) -> dict:
    """One study, decided pair by pair; hold: τ held at 1 (the uniform chance), with the same pairs,
    answers, order and coins, for the comparison."""
    w = world(rng, PAIRS, related)
    u = judge_uncertainties(w["r"], w["r"])
    f = w["r"][:, 0] - w["r"][:, 1]
    answer = (rng.random(PAIRS)[:, None] > w["truth"].cumsum(1)).sum(1)        # one rater: A, B or C
    y = np.select([answer == 0, answer == 1], [1.0, -1.0], 0.0)
    order, coins = rng.permutation(PAIRS), rng.random(PAIRS)
    chances, kept, pi, mix, led = {}, [], np.zeros(PAIRS), np.zeros(PAIRS), np.zeros(PAIRS, bool)
    tau = 1.0
    for t, i in enumerate(order):
        if len(kept) % FLOOR_EVERY == 0 and not hold:              # τ changes only at these counts of complete pairs
            done = np.array(kept, int)
            lam = weighted_lambda(y[done], f[done], 1 / pi[done])
            tau = live_floor(u[done], y[done] - lam * f[done], u, BUDGET, rated_chance=pi[done])
        if tau not in chances:
            chances[tau] = inclusion_probabilities(u, BUDGET, floor=tau)
        pi[i], mix[t], led[t] = chances[tau][i], tau, len(kept) >= PILOT_MIN_PAIRS   # led: τ from the answers
        if coins[t] < pi[i]:
            kept.append(i)                            # rated at once: complete before the next decision
    xi = np.isin(order, kept)
    m = float(f.mean())
    least = np.array([chances[tau].min() for tau in mix])
    found = adaptive_terms(y[order], f[order], pi[order], xi, m, least)
    reach = float(np.max(found.highs - m))
    low, high = anytime_running(found.terms, lower=m - reach, upper=m + reach, planned=PAIRS,
                                steps=(found.lows, found.highs), means=(-1.0, 1.0), typical_span=4.0)
    stop = np.flatnonzero(np.minimum(high, 1) - np.maximum(low, -1) <= TARGET)
    t = int(stop[0]) if len(stop) else PAIRS - 1
    evidence = mix[: t + 1][led[: t + 1]]
    return {"covers": bool(low[t] <= w["H"] <= high[t]), "leaning": float(np.mean(mix[: t + 1] < 1)),
            "led_leaning": float(np.mean(evidence < 1)) if len(evidence) else 0.0,
            "judgments": int(xi[: t + 1].sum()), "reached": bool(len(stop))}


@pytest.mark.parametrize("related", [True, False])
def test_the_mix_leans_where_the_judge_is_sure_and_right_and_the_stop_still_covers_h(related):
    """120 studies per world, each also run with τ held at 1: judgments to a 0.15-wide interval, leaning
    (the share of decisions with τ < 1 before the stop) and coverage of H at the stop."""
    seeds = np.random.default_rng(45 + related).integers(1 << 30, size=120)
    studies = [live_study(np.random.default_rng(s), related) for s in seeds]
    uniform = [live_study(np.random.default_rng(s), related, hold=True) for s in seeds]
    assert all(s["reached"] for s in studies + uniform)
    covered = np.mean([s["covers"] for s in studies])
    leaning = np.mean([s["leaning"] for s in studies])
    led = np.mean([s["led_leaning"] for s in studies])       # the decisions whose τ the answers chose
    ratio = np.mean([s["judgments"] for s in studies]) / np.mean([s["judgments"] for s in uniform])
    assert covered >= 0.91, covered                 # 95% promised; 120 studies' sampling error
    if related:
        assert leaning >= 0.5 and ratio <= 0.8, (leaning, ratio)   # main: uniform for 99.6–100% of decisions
    else:
        assert led <= 0.05 and ratio <= 1.05, (led, ratio)   # sureness says nothing: the answers bring τ to 1
