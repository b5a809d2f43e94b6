"""The live design's chance rule set once over every pair (analysis.active.rule_constants) and applied to one
pair at a time (apply_rule): each pair's chance is the one an independent water-filling written here gives
it among all the pairs, a pair alone gets to the last bit what it gets in the whole array (the design decides
one pair at a time), the least chance is the rule at the least uncertainty, and live_floor_by_rules, fed the
constants instead of the study's uncertainties, chooses live_floor's τ."""
import numpy as np
import pytest

from fairval.analysis.active import (
    FLOOR_EVERY,
    LIVE_FLOORS,
    apply_rule,
    inclusion_probabilities,
    live_floor,
    live_floor_by_rules,
    rule_constants,
)


def filled(u: np.ndarray, budget: float, tau: float) -> np.ndarray:
    """min(1, (1 − τ) c √u + τ budget / N) with c by bisection so that Σπ = budget; where no c can spend
    the budget (every unsure pair already at 1), the unsure pairs at 1 and the sure ones share the rest."""
    root, n = np.sqrt(u), len(u)
    base = tau * budget / n
    if tau == 1 or root.sum() == 0:
        return np.full(n, budget / n)
    unsure = root > 0
    if unsure.sum() + base * (~unsure).sum() <= budget:
        return np.where(unsure, 1.0, (budget - unsure.sum()) / (~unsure).sum())
    lo, hi = 0.0, 1e9
    for _ in range(300):
        c = (lo + hi) / 2
        lo, hi = (c, hi) if np.minimum(1, (1 - tau) * c * root + base).sum() < budget else (lo, c)
    return np.minimum(1, (1 - tau) * c * root + base)


def cases():
    rng = np.random.default_rng(11)
    yield "random", rng.uniform(0, 0.75, 500), 120
    yield "a few very unsure", np.concatenate([rng.uniform(0, 0.01, 480), rng.uniform(0.6, 0.75, 20)]), 200
    yield "all sure", np.zeros(300), 40
    yield "many zeros", np.concatenate([np.zeros(450), rng.uniform(0.2, 0.7, 50)]), 150     # saturated
    yield "many zeros, small budget", np.concatenate([np.zeros(450), rng.uniform(0.2, 0.7, 50)]), 30
    yield "equal", np.full(200, 0.3), 50
    yield "budget one short of all", rng.uniform(0, 0.75, 100), 99


@pytest.mark.parametrize("name, u, budget", list(cases()), ids=[c[0] for c in cases()])
@pytest.mark.parametrize("tau", [0.1, 0.3, 0.7, 1.0])
def test_a_pair_gets_from_the_constants_the_chance_it_gets_among_all_pairs(name, u, budget, tau):
    rules = rule_constants(u, budget, tau)
    whole = inclusion_probabilities(u, budget, floor=tau)
    assert whole == pytest.approx(filled(u, budget, tau), rel=1e-9, abs=1e-12)
    assert whole.sum() == pytest.approx(budget, rel=1e-9)
    # one pair at a time, as the design decides them: to the last bit
    assert [float(apply_rule(rules, [x])[0]) for x in u] == whole.tolist()
    assert float(apply_rule(rules, [u.min()])[0]) == whole.min()        # the least chance, from the least u
    if tau == 1 or not u.any():
        assert rules["rule"] == "uniform"
    if name == "many zeros" and tau < 1:
        assert rules["rule"] == "saturated" and set(whole[u > 0]) == {1.0}


def test_the_constants_survive_being_recorded():
    """They are kept as JSON with the recorded design: a round trip changes no chance."""
    import json

    u = np.random.default_rng(3).uniform(0, 0.75, 300)
    rules = rule_constants(u, 70, 0.4)
    again = json.loads(json.dumps(rules))
    assert apply_rule(again, u).tolist() == apply_rule(rules, u).tolist()


@pytest.mark.parametrize("seed", range(6))
def test_live_floor_by_rules_chooses_live_floors_tau(seed):
    """Rated pairs whose errors grow with √u (the judge's sureness tells) or not, 30–120 of them, all
    floors or a few: the same τ as live_floor over the study's uncertainties, from the constants alone."""
    rng = np.random.default_rng(seed)
    u = np.concatenate([rng.uniform(0, 0.02, 800), rng.uniform(0.4, 0.75, 200)])
    budget = 250
    floors = LIVE_FLOORS if seed % 2 else (0.2, 0.5, 1.0)
    n = int(rng.integers(3, 13)) * FLOOR_EVERY + int(rng.integers(0, FLOOR_EVERY))
    rated = rng.choice(len(u), n, replace=False)
    related = seed < 3
    residual = rng.normal(0, 1, n) * (np.sqrt(u[rated]) * 2 if related else 0.5)
    chance = inclusion_probabilities(u, budget, floor=0.7)[rated]
    rules = {tau: rule_constants(u, budget, tau) for tau in set(floors) | {1.0}}
    want = live_floor(u[rated], residual, u, budget, rated_chance=chance, floors=floors)
    assert live_floor_by_rules(u[rated], residual, rules, rated_chance=chance, floors=floors) == want
    assert live_floor_by_rules(u[rated][:29], residual[:29], rules, rated_chance=chance[:29], floors=floors) == \
        live_floor(u[rated][:29], residual[:29], u, budget, rated_chance=chance[:29], floors=floors)
