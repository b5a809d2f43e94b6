"""bench/adaptive_cost.py's numbers (issue 53): parts run side by side pool into one ratio per world whose Monte-Carlo
interval agrees with the delta method written here, that interval covers a known ratio of means, and the two fresh
worlds and the three pre-registered ones are what bench/unseen_worlds.py says (sure where right; sureness apart from
the error; shares, levels and noises as its comments state)."""
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
    parts = ["\n".join(adaptive_cost.run(tmp_path, lines=slice(2, 3), seeds=slice(lo, hi), which="--held-out"))
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
    parts = ["\n".join(adaptive_cost.run(tmp_path, lines=slice(0, 1), seeds=slice(lo, hi), which="--fresh"))
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


def _read(w: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What the app reads of a world: people's off-C mass, the judge's score and uncertainty, and the least
    uncertainty that score allows (off-C mass ≥ |score|), from the rows written."""
    score = judge_score(w)
    return w["truth"][:, 0] + w["truth"][:, 1], score, judge_uncertainties(w["p"], w["q"][:, [1, 0, 2]]), \
        np.abs(score) - score ** 2


def _shares(levels: np.ndarray) -> np.ndarray:
    return np.array([np.mean(np.isclose(levels, v)) for v in (0.04, 0.12, 0.3, 0.55, 0.85)])


def test_registered_worlds_are_as_their_comments_state():
    """bench/unseen_worlds.py's pre-registered worlds, checked from what the judge's rows and people's answer
    distributions hold (not from the generators' draws), on 60,000 pairs each: shares within ±0.015 (> 4 standard
    errors), means within 0.01."""
    assert [(name, pairs, budget) for name, _, pairs, budget in adaptive_cost.REGISTERED] == [
        ("five stated sureness levels, sure and right on 75%", 1000, 400),
        ("sureness a noisy function of its own error, sure and right on 65%", 1200, 500),
        ("five stated sureness levels, unrelated", 800, 300)]
    assert adaptive_cost.REGISTERED_SEED0 == 9600 and adaptive_cost.REGISTERED_STUDIES == 100
    n = 60_000
    worlds = [make(np.random.default_rng(11 + k), n) for k, (_, make, _, _) in enumerate(adaptive_cost.REGISTERED)]
    for w, share, rest in zip(worlds, (0.75, 0.65, 0.6), ([1.2, 1.2, 1.6], [1.2, 1.2, 1.6], [2.0, 1.0, 1.5])):
        assert len(w["mu"]) == n and w["p"].min() >= 0 and w["q"].min() >= 0
        assert np.allclose(w["p"].sum(axis=1), 1) and np.allclose(w["q"].sum(axis=1), 1)
        assert w["H"] == (w["truth"][:, 0] - w["truth"][:, 1]).mean()
        off, *_ = _read(w)
        clear = off <= 0.1                                        # a Dirichlet draw lands there < 1% of the time
        assert abs(clear.mean() - share) < 0.015
        assert abs(off[clear].mean() - (0.01 + 0.09 / 3)) < 0.01                 # 0.01 + 0.09 Beta(1, 2)
        assert abs((w["truth"][clear, 0] / off[clear]).mean() - 0.4) < 0.01       # A's share Beta(2, 3)
        assert np.allclose(w["truth"][~clear].mean(axis=0), np.array(rest) / sum(rest), atol=0.01)

    levels, led, apart = worlds
    off, score, u, least = _read(levels)
    err = score - levels["mu"]
    clear = off <= 0.1
    assert abs(np.median(np.abs(err[clear])) - 0.04 * stats.norm.ppf(0.75)) < 0.002    # robust to the < 1% strays
    free = least < 0.04 - 1e-9                  # every level can be stated there; the level is drawn apart from the score
    assert np.isclose(u[free][:, None], [0.04, 0.12, 0.3, 0.55, 0.85]).any(axis=1).all()
    assert np.allclose(_shares(u[free & clear]), [0.5, 0.3, 0.1, 0.05, 0.05], atol=0.015)
    assert np.allclose(_shares(u[free & ~clear]), [0.05, 0.05, 0.2, 0.35, 0.35], atol=0.03)   # ~1,000 pairs
    assert np.all(u >= np.minimum(least, 0.04) - 1e-9)

    off, score, u, least = _read(led)
    err = np.abs(score - led["mu"])
    clear = off <= 0.1
    assert abs(np.median(err[clear]) - 0.04 * stats.norm.ppf(0.75)) < 0.002
    stated = u > least + 1e-9                                    # not forced up by the score
    assert u[stated].min() >= 0.02 - 1e-9 and u.max() <= 0.95 + 1e-9
    # away from both clips and from the floor, u − (0.02 + |error|) is the N(0, 0.1) noise
    mid = stated & (err > 0.25) & (err < 0.6) & (least < 0.05)
    assert mid.sum() > 300
    assert abs((u - 0.02 - err)[mid].mean()) < 0.02 and abs((u - 0.02 - err)[mid].std() - 0.1) < 0.012
    assert stats.spearmanr(u, err).statistic > 0.6

    off, score, u, least = _read(apart)
    err = score - apart["mu"]
    free = least < 0.04 - 1e-9
    assert np.allclose(_shares(u[free]), [0.2] * 5, atol=0.015)
    assert abs(stats.spearmanr(u[free], np.abs(err[free])).statistic) < 0.05
    # the noise's sd Uniform(0.1, 0.5): E min(|e|, 1) over the clear pairs (|mean| ≤ 0.1, the clip at ±1 barely moves)
    sd = np.linspace(0.1, 0.5, 2001)
    folded = [stats.truncnorm.mean(0, 1 / s, scale=s) * (2 * stats.norm.cdf(1 / s) - 1) + 2 * stats.norm.sf(1 / s)
              for s in sd]
    assert abs(np.minimum(np.abs(err[off <= 0.1]), 1).mean() - np.mean(folded)) < 0.01


def _registered_set(table: list, seed: int, expected: list) -> list[dict]:
    """A pre-registered set's worlds as named and sized, each drawn on 60,000 pairs, with valid rows."""
    assert [(name, pairs, budget) for name, _, pairs, budget in table] == expected
    worlds = [make(np.random.default_rng(seed + k), 60_000) for k, (_, make, _, _) in enumerate(table)]
    for w in worlds:
        assert w["p"].min() >= 0 and np.allclose(w["p"].sum(axis=1), 1) and np.allclose(w["q"].sum(axis=1), 1)
    return worlds


def test_stop_69s_registered_worlds_are_as_their_comments_state():
    """bench/unseen_worlds.py's worlds pre-registered at stop 69, checked from the judge's rows and people's answer
    distributions on 60,000 pairs each: shares within ±0.015, means within 0.01 (several standard errors)."""
    against, split, noise = _registered_set(adaptive_cost.REGISTERED_69, 21, [
        ("score size against error, sureness unrelated", 900, 350),
        ("sure and right on 60%, the rest split evenly", 1100, 450),
        ("sureness unrelated, judge noise unrelated", 700, 300)])
    assert adaptive_cost.REGISTERED_69_SEED0 == 9800 and adaptive_cost.REGISTERED_69_STUDIES == 40
    # people agree strongly on half (A or B 94%), the judge's score their mean there; split evenly on the rest,
    # the judge's score near 0; its uncertainty 0.1 + 0.8 Beta(2, 2) wherever the score lets it be stated
    off, score, u, least = _read(against)
    agreed = np.abs(against["mu"]) > 0.85
    assert abs(agreed.mean() - 0.5) < 0.015
    assert np.median(np.abs(score[agreed] - against["mu"][agreed])) < 0.06 and np.abs(score[~agreed]).max() < 0.3
    assert np.allclose(against["truth"][~agreed].mean(axis=0), [4 / 9, 4 / 9, 1 / 9], atol=0.01)
    free = ~agreed                                               # |score| small: every uncertainty can be stated
    assert abs(u[free].mean() - 0.5) < 0.01 and u[free].min() >= 0.1 - 1e-9 and u[free].max() <= 0.9 + 1e-9
    assert abs(np.corrcoef(u[free], (score[free] - against["mu"][free]) ** 2)[0, 1]) < 0.03   # drawn apart
    # 60% clear (C 95%), the judge within 0.03 of 0 and sure (0.02–0.1) there; the rest Dirichlet(2, 2, 1)
    off, score, u, least = _read(split)
    clear = np.isclose(off, 0.05)
    assert abs(clear.mean() - 0.6) < 0.015 and np.abs(score[clear]).max() <= 0.03 + 1e-9
    assert u[clear].min() >= 0.02 - 1e-9 and u[clear].max() <= 0.1 + 1e-6 and u[~clear].min() >= 0.4 - 1e-9
    assert np.allclose(split["truth"][~clear].mean(axis=0), [0.4, 0.4, 0.2], atol=0.01)
    # half clear, the rest Dirichlet(1, 1, 1); uncertainty 0.1 + 0.8 uniform apart from the judge's error
    off, score, u, least = _read(noise)
    clear = np.isclose(off, 0.05)
    assert abs(clear.mean() - 0.5) < 0.015
    assert np.allclose(noise["truth"][~clear].mean(axis=0), [1 / 3, 1 / 3, 1 / 3], atol=0.01)
    stated = least < 0.1                                        # where the score leaves every uncertainty possible
    assert abs(u[stated].mean() - 0.5) < 0.01
    assert abs(np.corrcoef(u[stated], (score[stated] - noise["mu"][stated]) ** 2)[0, 1]) < 0.03


def test_stop_70s_registered_worlds_are_as_their_comments_state():
    """bench/unseen_worlds.py's worlds pre-registered at stop 70, checked as stop 69's are (60,000 pairs each)."""
    leaning, small, levels = _registered_set(adaptive_cost.REGISTERED_70, 31, [
        ("sure and right on 70%, the rest leaning B", 1300, 500),
        ("sure and right on 80%, a small study", 500, 250),
        ("sureness unrelated, three noise levels", 1000, 400)])
    assert adaptive_cost.REGISTERED_70_SEED0 == 10000 and adaptive_cost.REGISTERED_70_STUDIES == 40
    # 70% clear (C 0.93–0.99, A and B even), the judge within 0.04 of 0 and sure (0.01–0.13); the rest Dirichlet(1, 2, 1.2)
    off, score, u, least = _read(leaning)
    clear = np.isclose(leaning["truth"][:, 0], leaning["truth"][:, 1]) & (off <= 0.07 + 1e-9)
    assert abs(clear.mean() - 0.7) < 0.015 and np.abs(score[clear]).max() <= 0.04 + 1e-9
    assert abs(off[clear].mean() - 0.04) < 0.002
    assert u[clear].min() >= 0.01 - 1e-9 and u[clear].max() <= 0.13 + 1e-6 and abs(u[clear].mean() - 0.04) < 0.003
    assert np.allclose(leaning["truth"][~clear].mean(axis=0), np.array([1.0, 2.0, 1.2]) / 4.2, atol=0.01)
    # 80% clear (C 97%), the judge within 0.02 of 0 and sure (0.02–0.08); the rest Dirichlet(1, 1, 1), unsure (≥ 0.35)
    off, score, u, least = _read(small)
    clear = np.isclose(off, 0.03)
    assert abs(clear.mean() - 0.8) < 0.015 and np.abs(score[clear]).max() <= 0.02 + 1e-9
    assert u[clear].min() >= 0.02 - 1e-9 and u[clear].max() <= 0.08 + 1e-6
    assert np.allclose(small["truth"][~clear].mean(axis=0), [1 / 3, 1 / 3, 1 / 3], atol=0.01)
    stated = ~clear & (least < 0.35)
    assert abs(u[stated].mean() - 0.65) < 0.01
    # 65% clear (C 95%), the rest Dirichlet(1.5, 1, 1.5); uncertainty 0.05 + 0.9 uniform apart from the judge's error,
    # whose noise takes three sizes
    off, score, u, least = _read(levels)
    clear = np.isclose(off, 0.05)
    assert abs(clear.mean() - 0.65) < 0.015
    assert np.allclose(levels["truth"][~clear].mean(axis=0), np.array([1.5, 1.0, 1.5]) / 4, atol=0.01)
    # on clear pairs (people's mean 0) the judge's score is its noise, clipped to ±1: E|clip(N(0, σ))| over σ
    sizes = np.array([0.1, 0.3, 0.5])
    folded = sizes * np.sqrt(2 / np.pi) - 2 * (sizes * stats.norm.pdf(1 / sizes) - stats.norm.sf(1 / sizes))
    assert abs(np.abs(score[clear]).mean() - folded.mean()) < 0.005
    stated = least < 0.05
    assert abs(u[stated].mean() - 0.5) < 0.01
    assert abs(np.corrcoef(u[stated], (score[stated] - levels["mu"][stated]) ** 2)[0, 1]) < 0.03
