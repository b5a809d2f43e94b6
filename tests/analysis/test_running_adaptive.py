"""The adaptive design's interval kept one decided pair at a time (analysis.running_adaptive) is the one
the full analysis builds over all the terms at once (analysis.active.adaptive_terms into
analysis.sequential.anytime_running with each term's own bounds, as annotate.adaptive.estimate calls them):
the same terms to the bit, the same betting ends to the bit below ASYMPTOTIC_FROM, the same asymptotic
ends to rounding from there, through a JSON round trip of the state after every pair."""
import json

import numpy as np
import pytest

from fairval.analysis import running_adaptive
from fairval.analysis.active import adaptive_step, adaptive_terms, envelope_reach
from fairval.analysis.sequential import ASYMPTOTIC_FROM, anytime_running


def decided(seed: int, pairs: int, least_chance: float = 0.05):
    """A decided order: judge scores, chances (some tiny), which pairs went to people, their means."""
    rng = np.random.default_rng(seed)
    f = rng.uniform(-1, 1, pairs)
    chance = rng.uniform(least_chance, 0.95, pairs)
    kept = rng.random(pairs) < chance
    y = np.where(kept, np.clip(np.round(f + rng.normal(0, 0.6, pairs)), -1, 1), np.nan)
    least = np.minimum.accumulate(chance) * rng.uniform(0.5, 1.0, pairs)
    return f, chance, kept, y, least


def test_the_step_gives_adaptive_terms_to_the_bit():
    f, chance, kept, y, least = decided(1, 300)
    found = adaptive_terms(y, f, chance, kept, 0.1, least)
    sums = [0.0] * 5
    for t in range(len(f)):
        term, low, high, sums = adaptive_step(sums, y[t], f[t], chance[t], bool(kept[t]), 0.1, least[t])
        assert (term, low, high) == (found.terms[t], found.lows[t], found.highs[t])
    assert len(set(np.round(found.terms, 6))) > 50           # λ moved: the terms are not all alike


def tame_by_hand(low, high, least, tame):
    """Each asymptotic interval (from the 30th pair) cut by every one before it in the tame prefix: the pairs
    before the first whose least chance fell below `tame` (issue 53), written as a loop."""
    low, high = list(low), list(high)
    prefix = 0
    while prefix < len(least) and least[prefix] >= tame:
        prefix += 1
    out_low, out_high = list(low), list(high)
    for t in range(ASYMPTOTIC_FROM - 1, len(low)):
        for s in range(ASYMPTOTIC_FROM - 1, min(t, prefix - 1) + 1):
            out_low[t], out_high[t] = max(out_low[t], low[s]), min(out_high[t], high[s])
    return np.array(out_low), np.array(out_high)


def trusted_by_hand(kept):
    """Issue 53's burn-in as a loop: from the 30th decided pair, once BURN_IN of them were kept."""
    out, rated = [], 0
    for t in range(len(kept)):
        rated += bool(kept[t])
        out.append(t + 1 >= ASYMPTOTIC_FROM and rated >= running_adaptive.BURN_IN)
    return out


@pytest.mark.parametrize("seed, pairs, least_chance, tame_from", [(2, 29, 0.7, None), (3, 400, 0.05, None),
                                                                  (4, 400, 0.05, 180), (5, 300, 0.3, 300)])
def test_the_kept_interval_is_anytime_running_over_the_terms_after_every_pair(seed, pairs, least_chance, tame_from):
    """tame_from: the tame prefix holds at least this many pairs (None: no tame pair, as before issue 53)."""
    f, chance, kept, y, least = decided(seed, pairs, least_chance)
    tame = 2.0 if tame_from is None else float(least[:tame_from].min())
    budget, m = int(pairs * least_chance), float(f.mean())
    reach = envelope_reach(budget, pairs)
    found = adaptive_terms(y, f, chance, kept, m, least)
    trusted = running_adaptive.trusted_pairs(kept)
    assert list(trusted) == trusted_by_hand(kept)
    low, high = anytime_running(found.terms, lower=m - reach, upper=m + reach, planned=pairs,
                                steps=(found.lows, found.highs), means=(-1.0, 1.0), typical_span=4.0,
                                intersect=running_adaptive.INTERSECT, trusted=trusted)
    plain = low.copy(), high.copy()
    low, high = tame_by_hand(low, high, least, tame)
    assert np.array_equal(np.vstack(running_adaptive.tame_intersection(*plain, least, tame=tame)), np.vstack([low, high]))
    if tame_from is not None:                             # the prefix's intersection narrowed some interval
        assert (low > plain[0] + 1e-9).any() or (high < plain[1] - 1e-9).any()
    state = running_adaptive.start(judge_mean=m, lower=m - reach, upper=m + reach, planned=pairs, typical_span=4.0,
                                   tame=tame)
    widths = []
    for t in range(pairs):
        state = json.loads(json.dumps(running_adaptive.step(state, kept=bool(kept[t]), human=y[t], judge=f[t],
                                                            chance=chance[t], least=least[t])))
        got = running_adaptive.interval(state)
        assert got.n_decided == t + 1 and got.n_pairs_complete == kept[: t + 1].sum()
        if kept[: t + 1].sum() < 2:
            assert got.ci is None
            continue
        expected = [max(low[t], -1.0), min(high[t], 1.0)]
        if t + 1 < ASYMPTOTIC_FROM:
            assert list(got.ci) == expected                         # the betting head: the same operations
        else:
            assert list(got.ci) == pytest.approx(expected, abs=1e-12)
        assert got.value == pytest.approx(found.terms[: t + 1].mean(), abs=1e-12)
        widths.append(got.ci.width)
    assert min(widths) < 0.9 * max(widths)                        # it narrowed: the comparison saw real ends
    if pairs > 100:                         # the asymptotic part was both off and on, so both were compared
        assert trusted.any() and not trusted.all()


def test_the_app_intersects_every_interval_from_the_burn_in_on_even_where_the_design_leans():
    """Issue 53, stop 70: the asymptotic part is intersected over every decided pair from its burn-in on, however
    low a chance fell (before, only while no chance was below 70% of the uniform one; that cost the design its
    saving where the judge is sure and right). Here the least chance falls below a tenth of the uniform one before
    the 10th decided pair."""
    pairs, budget = 400, 200
    f, chance, kept, y, least = decided(6, pairs, 0.05)
    assert least[9] < 0.1 * budget / pairs
    m = float(f.mean())
    reach = envelope_reach(budget, pairs)
    found = adaptive_terms(y, f, chance, kept, m, least)
    plain = anytime_running(found.terms, lower=m - reach, upper=m + reach, planned=pairs, steps=(found.lows, found.highs),
                            means=(-1.0, 1.0), typical_span=4.0, intersect=running_adaptive.INTERSECT,
                            trusted=running_adaptive.trusted_pairs(kept))
    got = running_adaptive.tame_intersection(*plain, least, tame=running_adaptive.tame_least(budget, pairs))
    by_hand = tame_by_hand(*plain, least, -np.inf)          # every pair from the 30th on
    assert np.array_equal(np.vstack(got), np.vstack(by_hand))
    assert (by_hand[0] > plain[0] + 1e-9).any() and (by_hand[1] < plain[1] - 1e-9).any()
