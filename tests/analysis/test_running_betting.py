"""The betting sequence kept one observation at a time (analysis.running_betting) is running_sets' own:
the same ends after every observation, through a JSON round trip of its state, for bets sized for a
planned sample and for data that hit the range's ends."""
import json

import numpy as np
import pytest

from fairval.analysis import running_betting
from fairval.analysis.sequential import running_sets


@pytest.mark.parametrize("planned, spread", [(10, 0.05), (30, 0.3), (500, 0.01)])
def test_stepping_gives_running_sets_ends_after_every_observation(planned, spread):
    x = np.clip(np.random.default_rng(planned).normal(0.4, spread, 120), 0, 1)
    low, high = running_sets(x, planned=planned)
    state = running_betting.start()
    for i, xi in enumerate(x):
        state = json.loads(json.dumps(running_betting.step(state, xi, planned=planned)))
        assert (state["low"], state["high"]) == (low[i], high[i])
    assert high[-1] - low[-1] < 1                                   # it did narrow: the check compares something


def test_stepping_without_replacement_gives_running_sets_ends():
    """A uniform sample of 150 of a set: bets against the mean of the values left, given as `past`."""
    rng = np.random.default_rng(3)
    x = np.clip(rng.normal(0.6, 0.1, 120), 0, 1)
    past = np.concatenate([[0.0], np.cumsum(x)[:-1]]) * 0.98      # earlier terms as a later λ counts them
    low, high = running_sets(x, planned=40, population=150, past=past)
    state = running_betting.start()
    for i, xi in enumerate(x):
        state = json.loads(json.dumps(running_betting.step(state, xi, planned=40, population=150, earlier=past[i])))
        assert (state["low"], state["high"]) == (low[i], high[i])
    plain, _ = running_sets(x, planned=40)
    assert low[-1] != plain[-1]                                     # the population changed the ends
