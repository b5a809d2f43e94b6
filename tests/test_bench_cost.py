"""bench/adaptive_cost.py's numbers (issue 53): parts run side by side pool into one ratio per world whose Monte-Carlo
interval agrees with the delta method written here, that interval covers a known ratio of means, and the two fresh
worlds are what bench/unseen_worlds.py says (sure where right; sureness apart from the error)."""
import numpy as np
from scipy import stats

from bench import adaptive_cost
from bench.unseen_worlds import graded_sure_and_right, two_error_sizes
from bench.worlds import judge_score
from fairval.analysis.active import judge_uncertainties


def _studies(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Paired judgments to the stop: the adaptive design's follow the uniform's (same world), mean ratio 0.8."""
    rng = np.random.default_rng(seed)
    u = rng.gamma(8.0, 50.0, n)
    return np.round(0.8 * u * rng.lognormal(-0.02, 0.2, n)), np.round(u)


def test_parts_pool_into_one_ratio_with_the_delta_methods_interval(monkeypatch, tmp_path):
    a, u = _studies(1, 60)
    stops = {k: (k % 7 != 0, k % 11 != 3) for k in range(60)}          # stopped; H held at the stop

    def fake(folder, line, seed, tag=""):
        k = seed - adaptive_cost.HELD_OUT_SEED0
        return {"adaptive": {"judgments": a[k], "stopped": stops[k][0], "covered": stops[k][1]},
                "uniform --n": {"judgments": u[k], "stopped": True, "covered": True}}

    monkeypatch.setattr(adaptive_cost, "stop_pair", fake)
    parts = ["\n".join(adaptive_cost.run(tmp_path, lines=slice(2, 3), seeds=slice(lo, hi), held_out=True))
             for lo, hi in ((0, 25), (25, 60))]
    (line,) = adaptive_cost.pool(parts)

    ratio = a.mean() / u.mean()
    se = np.sqrt(np.var(a - ratio * u, ddof=1) / len(a)) / u.mean()      # the delta method for a ratio of means
    low, high = (float(x) for x in line.split("95% MC ")[1].split(")")[0].split("–"))
    assert line.startswith("sure and right on 70%, 800 pairs, budget 400: 60 studies (seeds 7100–7159): ")
    assert f"= {ratio:.2f}x" in line
    assert abs(low - (ratio - 1.96 * se)) < 0.015 and abs(high - (ratio + 1.96 * se)) < 0.015
    held = sum(s and c for s, c in stops.values())
    assert f"H held at {held} of {sum(s for s, _ in stops.values())} adaptive stops, 60 of 60 uniform" in line


def test_parts_that_overlap_are_refused(monkeypatch, tmp_path):
    monkeypatch.setattr(adaptive_cost, "stop_pair", lambda folder, line, seed, tag="": {
        d: {"judgments": 100, "stopped": True, "covered": True} for d in ("adaptive", "uniform --n")})
    parts = ["\n".join(adaptive_cost.run(tmp_path, lines=slice(0, 1), seeds=slice(lo, hi), fresh=True))
             for lo, hi in ((0, 5), (4, 8))]
    try:
        list(adaptive_cost.pool(parts))
    except SystemExit as e:
        assert "seeds 9104–9107 are in two parts" in str(e)
    else:
        raise AssertionError("overlapping parts were pooled")


def test_the_ratio_interval_covers_a_known_ratio():
    """400 replicates of 60 paired studies, true ratio of means 0.8 × E[lognormal(−0.02, 0.2)]: the paired
    bootstrap's 95% interval holds it in ≥ 91% (Monte-Carlo error of the share ±1.1 points at 95%)."""
    truth = 0.8 * np.exp(-0.02 + 0.2 ** 2 / 2)
    held = 0
    for rep in range(400):
        a, u = _studies(100 + rep, 60)
        low, high = adaptive_cost.ratio_interval(a, u, draws=1000)
        held += low <= truth <= high
    assert held >= 364, held


def test_fresh_worlds_are_as_written():
    right = graded_sure_and_right(np.random.default_rng(1), 1500)
    apart = two_error_sizes(np.random.default_rng(2), 1200)
    for w in (right, apart):
        assert np.allclose(w["p"].sum(axis=1), 1) and np.allclose(w["q"].sum(axis=1), 1)
        assert w["p"].min() >= 0 and w["q"].min() >= 0
        assert w["H"] == (w["truth"][:, 0] - w["truth"][:, 1]).mean()
    for w, lo, hi in ((right, 0.6, 1.0), (apart, -0.1, 0.1)):
        sureness = judge_uncertainties(w["p"], w["q"][:, [1, 0, 2]])
        score = judge_score(w)
        one_rater = w["truth"][:, 0] + w["truth"][:, 1] - w["mu"] ** 2 + (score - w["mu"]) ** 2
        assert lo < stats.spearmanr(sureness, one_rater).statistic < hi
    # the clear share: 80% and 60% of pairs where people say C at least 90% of the time
    assert abs((right["truth"][:, 2] >= 0.9).mean() - 0.8) < 0.04
    assert abs((apart["truth"][:, 2] >= 0.9).mean() - 0.6) < 0.05
