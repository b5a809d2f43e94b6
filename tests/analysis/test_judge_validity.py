"""Judge-validity statistics against computations written here: closed forms, plain loops, theory."""
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairval.analysis import judge_validity as jv
from fairval.analysis.alt_test import alt_test


def series(values, prefix="i"):
    return pd.Series(values, index=[f"{prefix}{k}" for k in range(len(values))], dtype=float)


def test_wilson_is_the_root_pair_of_its_quadratic():
    """Wilson's bounds are the p solving (p̂ − p)² = z² p (1 − p) / n."""
    for hits, n in ((7, 10), (0, 5), (50, 50), (13, 40)):
        z2, phat = 1.959963984540054 ** 2, hits / n
        roots = np.sort(np.roots([1 + z2 / n, -(2 * phat + z2 / n), phat ** 2]).real)
        assert jv.wilson(hits, n) == pytest.approx(tuple(roots), abs=1e-9)


def test_sign_agreement_leaves_out_a_human_mean_of_zero_and_counts_only_shared_items():
    human = series([0.5, -0.2, 0.0, 0.3, 0.9])
    judge = series([0.1, 0.4, 0.7, 0.2])               # i4 has no judge score; i2: people's mean 0, left out
    got = jv.sign_agreement(human, judge)
    assert (got.value, got.n) == (2 / 3, 3)
    assert list(got.ci) == pytest.approx(list(jv.wilson(2, 3)))
    assert jv.sign_agreement(series([0.0]), series([0.3])).reason
    assert jv.sign_agreement(series([]), series([])).reason


def kendall_tau_b(x, y):
    concordant = discordant = ties_x = ties_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            ties_x += 1
        elif dy == 0:
            ties_y += 1
        elif dx == dy:
            concordant += 1
        else:
            discordant += 1
    return (concordant - discordant) / math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))


def test_rank_correlations_and_their_fisher_intervals():
    rng = np.random.default_rng(3)
    h = np.round(rng.normal(size=40), 1)
    j = np.round(h + rng.normal(size=40), 1)
    human, judge = series(h), series(j)
    ranks = stats.rankdata(h), stats.rankdata(j)
    rho = np.corrcoef(*ranks)[0, 1]
    got = jv.rank_correlation(human, judge, "spearman")
    assert got.value == pytest.approx(rho) and got.n == 40
    se = math.sqrt(1.06 / 37)
    assert list(got.ci) == pytest.approx([math.tanh(math.atanh(rho) - 1.959964 * se),
                                       math.tanh(math.atanh(rho) + 1.959964 * se)], abs=1e-6)
    tau = kendall_tau_b(h, j)
    got = jv.rank_correlation(human, judge, "kendall")
    assert got.value == pytest.approx(tau)
    se = math.sqrt(0.437 / 36)
    assert got.ci[0] == pytest.approx(math.tanh(math.atanh(tau) - 1.959964 * se), abs=1e-6)


@pytest.mark.parametrize("kind", ["spearman", "kendall"])
def test_correlations_are_undefined_with_a_reason(kind):
    assert "at least" in str(jv.rank_correlation(series([1, 2]), series([1, 2]), kind).reason)
    flat = jv.rank_correlation(series([1, 1, 1, 1, 1, 1]), series([1, 2, 3, 4, 5, 6]), kind)
    assert flat.value is None and "same" in str(flat.reason)


def test_concordance_is_one_minus_the_scaled_mean_square_difference():
    rng = np.random.default_rng(5)
    h = rng.normal(size=200)
    j = 0.8 * h + 0.3 + rng.normal(scale=0.5, size=200)
    expected = 1 - np.mean((h - j) ** 2) / (h.var() + j.var() + (h.mean() - j.mean()) ** 2)
    got = jv.concordance(series(h), series(j))
    assert got.value == pytest.approx(expected)
    # Lin's asymptotic interval matches a large bootstrap of the same data
    index = rng.integers(0, 200, (4000, 200))
    hb, jb = h[index], j[index]
    boot = 1 - np.mean((hb - jb) ** 2, axis=1) / (hb.var(axis=1) + jb.var(axis=1)
                                                   + (hb.mean(axis=1) - jb.mean(axis=1)) ** 2)
    assert list(got.ci) == pytest.approx(list(np.quantile(boot, [0.025, 0.975])), abs=0.02)
    same = jv.concordance(series(h), series(h))
    assert same.value == pytest.approx(1.0) or same.value is None


def test_rate_difference_is_paired_over_shared_items():
    human, judge = series([0.5, 0.0, -1.0, 1.0]), series([0.0, 0.0, -0.5])
    got = jv.rate_difference(human, judge, n_boot=500, seed=1)
    assert got.value == pytest.approx(np.mean([0.5, 0.0, -0.5])) and got.n == 3
    assert got.ci[0] <= got.value <= got.ci[1]
    assert got == jv.rate_difference(human, judge, n_boot=500, seed=1)          # one seed, one interval


def test_mean_interval_is_close_to_the_normal_one_on_many_items():
    values = series(np.random.default_rng(2).normal(0.2, 1.0, 900))
    got = jv.mean_with_interval(values, n_boot=2000, seed=0)
    se = values.std(ddof=1) / 30
    assert list(got.ci) == pytest.approx([values.mean() - 1.96 * se, values.mean() + 1.96 * se], abs=0.01)


def ceiling_ratings(n_items, k, true_sd, noise_sd, seed):
    rng = np.random.default_rng(seed)
    truth = rng.normal(0, true_sd, n_items)
    rows = [(f"i{i}", f"r{r}", truth[i] + rng.normal(0, noise_sd)) for i in range(n_items) for r in range(k)]
    return pd.DataFrame(rows, columns=["item_id", "rater_id", "score"])


def test_the_human_ceiling_matches_the_reliability_theory_predicts():
    """With true item scores of variance 1 and rater noise of variance 1, the mean of k = 4 raters has
    reliability k / (k + 1) = 0.8 (Spearman–Brown on the single-rater reliability 0.5)."""
    got = jv.human_ceiling(ceiling_ratings(1500, 4, 1.0, 1.0, seed=1), n_boot=60, seed=0, splits=40)
    assert got.value == pytest.approx(0.8, abs=0.03)
    assert got.ci[0] < 0.8 < got.ci[1] and got.n == 1500
    # E[sample sd] of 4 normal draws is c4 = sqrt(2/3) Γ(2) / Γ(1.5) times the sd; over sqrt(4) raters
    c4 = math.sqrt(2 / 3) * math.gamma(2) / math.gamma(1.5)
    assert got.item_se == pytest.approx(c4 / math.sqrt(4), abs=0.015)


def test_the_human_ceiling_of_perfect_and_of_pure_noise_raters():
    perfect = ceiling_ratings(50, 4, 1.0, 0.0, seed=2)
    assert jv.human_ceiling(perfect, n_boot=0, seed=0).value == pytest.approx(1.0)
    noise = ceiling_ratings(800, 4, 0.0, 1.0, seed=3)
    assert abs(jv.human_ceiling(noise, n_boot=0, seed=0).value) < 0.15
    one_rater = ceiling_ratings(10, 1, 1.0, 1.0, seed=4)
    assert "two raters" in str(jv.human_ceiling(one_rater, n_boot=0, seed=0).reason)


def test_first_position_share_ignores_neither_answers():
    got = jv.first_position_share(pd.Series(["A", "A", "B", "C", "C", "A"]))
    assert (got.value, got.n) == (0.75, 4) and list(got.ci) == pytest.approx(list(jv.wilson(3, 4)))
    assert jv.first_position_share(pd.Series(["C", "C"])).reason


def test_judge_order_disagreement_by_hand():
    consistent = {"p_a": 0.7, "p_b": 0.1, "p_c": 0.2, "q_a": 0.1, "q_b": 0.7, "q_c": 0.2}
    position = {"p_a": 0.8, "p_b": 0.1, "p_c": 0.1, "q_a": 0.8, "q_b": 0.1, "q_c": 0.1}   # always "A"
    got = jv.judge_order_disagreement([consistent, position])
    # consistent discards nothing; position keeps min(.8,.1)+min(.1,.8)+min(.1,.1) = 0.3
    assert got.discarded_mass == pytest.approx((0.0 + 0.7) / 2)
    assert got.argmax_differs == 0.5 and got.n == 2


def reference_alt_test(ratings, judge, epsilon, q, min_items):
    """Calderon et al.'s procedure written out rater by rater, item by item."""
    rows = []
    for rater, mine in ratings.groupby("rater_id"):
        w_f, w_h = [], []
        for item, answer in zip(mine["item_id"], mine["answer"]):
            others = ratings[(ratings["item_id"] == item) & (ratings["rater_id"] != rater)]["answer"]
            if len(others) == 0 or item not in judge.index:
                continue
            s_h, s_f = -abs(answer - others.mean()), -abs(judge[item] - others.mean())
            w_f.append(float(s_f >= s_h))
            w_h.append(float(s_h >= s_f))
        if len(w_f) >= min_items:
            d = np.array(w_h) - np.array(w_f)
            sd = d.std(ddof=1)
            p = (0.0 if d.mean() < epsilon else 1.0) if sd == 0 else \
                stats.t.cdf((d.mean() - epsilon) / (sd / math.sqrt(len(d))), len(d) - 1)
            rows.append((rater, np.mean(w_f), p))
    m = len(rows)
    c = sum(1 / i for i in range(1, m + 1))
    ps = [p for _, _, p in rows]
    order = np.argsort(ps)
    adjusted = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):                       # step-up, from the largest p down
        i = order[rank - 1]
        running = min(running, m * c * ps[i] / rank)
        adjusted[i] = min(1.0, running)
    wins = [a <= q for a in adjusted]
    return sum(wins) / m, float(np.mean([rho for _, rho, _ in rows]))


@pytest.mark.parametrize("judge_noise", [0.05, 0.6, 2.0])
def test_alt_test_matches_the_procedure_written_out(judge_noise):
    rng = np.random.default_rng(7)
    truth = rng.normal(size=60)
    rows = []
    for r in range(6):                                  # unequal raters per item, missing cells
        for i in range(60):
            if rng.random() < 0.75:
                rows.append((f"i{i}", f"r{r}", float(np.clip(np.round(truth[i] + rng.normal(0, 0.7)), -1, 1))))
    ratings = pd.DataFrame(rows, columns=["item_id", "rater_id", "answer"])
    judge = pd.Series(truth + rng.normal(0, judge_noise, 60), index=[f"i{i}" for i in range(60)]).clip(-1, 1)
    got = alt_test(ratings, judge, epsilon=0.1, min_items=20)
    omega, rho = reference_alt_test(ratings, judge, 0.1, 0.05, 20)
    assert got.winning_rate == pytest.approx(omega) and got.advantage_probability == pytest.approx(rho)
    assert got.passed == (omega >= 0.5) and got.n_raters == 6


def test_alt_test_a_judge_equal_to_the_crowd_passes_and_a_contrary_one_fails():
    rng = np.random.default_rng(8)
    rows = [(f"i{i}", f"r{r}", float(rng.choice([-1, 0, 1]))) for i in range(40) for r in range(4)]
    ratings = pd.DataFrame(rows, columns=["item_id", "rater_id", "answer"])
    crowd = ratings.groupby("item_id")["answer"].mean()
    assert alt_test(ratings, crowd, min_items=30).winning_rate == 1.0
    assert alt_test(ratings, -crowd * 5, min_items=30).winning_rate == 0.0


def test_alt_test_needs_three_raters_with_enough_items():
    ratings = pd.DataFrame([(f"i{i}", f"r{r}", 0.0) for i in range(40) for r in range(2)],
                           columns=["item_id", "rater_id", "answer"])
    got = alt_test(ratings, pd.Series(0.0, index=[f"i{i}" for i in range(40)]), min_items=30)
    assert got.winning_rate is None and "at least 3" in str(got.reason) and got.n_raters == 2
    few = alt_test(ratings, pd.Series(0.0, index=[f"i{i}" for i in range(40)]), min_items=50)
    assert few.n_raters_left_out == 2


def test_alt_test_on_labels_counts_agreement_with_the_others():
    ratings = pd.DataFrame([(f"i{i}", f"r{r}", "A" if (i + r) % 3 else "B") for i in range(40) for r in range(4)],
                           columns=["item_id", "rater_id", "answer"])
    majority = ratings.groupby("item_id")["answer"].agg(lambda a: a.mode()[0])
    got = alt_test(ratings, majority, labels=True, min_items=30)
    assert got.advantage_probability >= 0.9 and got.n_raters == 4
