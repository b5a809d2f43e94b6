"""The judge's side's bootstrap of a mean, drawn and averaged in blocks (analysis.judge_validity.bootstrap_means):
the same means, to the last bit, as one (n_boot × n) array of int64 indices and of resampled values gave."""
import numpy as np
import pytest

from fairval.analysis import judge_validity
from fairval.analysis.judge_validity import bootstrap_means


@pytest.mark.parametrize("n, n_boot, seed", [(7, 1000, 0), (31, 999, 53), (2001, 200, 7), (50_000, 30, 1)])
def test_the_blocks_give_the_one_arrays_means_bit_for_bit(n, n_boot, seed, monkeypatch):
    values = np.random.default_rng(n).uniform(-1, 1, n)
    whole = values[np.random.default_rng(seed).integers(0, n, (n_boot, n))].mean(axis=1)
    monkeypatch.setattr(judge_validity, "ROWS_AT_ONCE", 3 * n + 1)        # blocks of 3 rows: several blocks
    assert np.array_equal(bootstrap_means(values, n_boot, seed), whole)


def test_no_draws_no_means():
    assert bootstrap_means(np.array([0.1, 0.2]), 0, 1).shape == (0,)
