"""lmra.sign_agreement_cs counts as the point estimate does (issue 53): a pair whose people's mean is exactly 0
names no direction to agree with, so it is left out of the share and counted in n_human_zero, under a uniform
sample and under the adaptive design. Expected shares are counted here from the pairs themselves."""
import numpy as np
import pandas as pd

from fairval.annotate.adaptive.estimate import adaptive_sign_cs
from fairval.annotate.material.design import Design
from fairval.annotate.results.judge import sign_agreement_cs


def pairs(rng, n):
    """Three raters answering +1, −1 or 0 (a third of pairs clear: everyone 0); a judge near people's mean."""
    p = rng.dirichlet([1, 1, 1], n)
    p[rng.random(n) < 0.35] = [0.02, 0.02, 0.96]
    answers = np.array([rng.choice([1.0, -1.0, 0.0], size=3, p=row) for row in p])
    human = answers.mean(axis=1)
    judge = np.clip(p[:, 0] - p[:, 1] + rng.normal(0, 0.3, n), -1, 1)
    return human, judge


def test_a_census_of_a_uniform_sample_gives_the_share_among_pairs_with_a_direction():
    rng = np.random.default_rng(53)
    human, judge = pairs(rng, 300)
    order = rng.permutation(300)
    completed = pd.DataFrame({"order": np.arange(300), "human": human[order]}, index=order)
    cs = sign_agreement_cs(completed, pd.Series(judge, index=range(300)), Design.of({"n": 300, "of": 300, "seed": 0}))
    direction = human != 0
    want = float(np.mean(np.sign(human[direction]) == np.sign(judge[direction])))
    every = float(np.mean(np.sign(human) == np.sign(judge)))         # what counting 0 as a sign gave
    assert 40 < (~direction).sum() < 200 and abs(want - every) > 0.1
    assert cs.n_human_zero == int((~direction).sum())
    assert abs(cs.value - want) < 1e-12
    # a census: each share is known to the grid, so their ratio to a few hundredths
    assert cs.ci[0] <= want <= cs.ci[1] and 0 < cs.ci[1] - cs.ci[0] < 0.05
    assert not cs.ci[0] <= every <= cs.ci[1]


def test_part_of_a_uniform_sample_holds_the_share_among_pairs_with_a_direction():
    rng = np.random.default_rng(7)
    human, judge = pairs(rng, 400)
    order = rng.permutation(400)[:150]
    completed = pd.DataFrame({"order": np.arange(150), "human": human[order]}, index=order)
    cs = sign_agreement_cs(completed, pd.Series(judge, index=range(400)), Design.of({"n": 200, "of": 400, "seed": 0}))
    seen = human[order] != 0
    want = float(np.mean(np.sign(human[order][seen]) == np.sign(judge[order][seen])))
    assert abs(cs.value - want) < 1e-12 and cs.n_human_zero == int((~seen).sum())
    assert 0 <= cs.ci[0] < cs.value < cs.ci[1] <= 1
    assert "people's mean is not 0" in cs.valid


def test_the_adaptive_design_leaves_out_pairs_people_answer_0_on_average():
    rng = np.random.default_rng(11)
    human, judge = pairs(rng, 240)
    ids = [f"p{k}" for k in range(240)]
    kept = rng.random(240) < 0.5
    decisions = pd.DataFrame({"item_id": ids, "decision_order": np.arange(240), "decided_at": 1.0, "kept": kept,
                              "chance": 0.5, "least": 0.5})
    completed = pd.DataFrame({"human": np.where(kept, human, np.nan)}, index=ids).dropna()
    cs = adaptive_sign_cs(pd.Series(judge, index=ids), decisions, completed, {"budget": 120, "of": 240})
    rated = kept & (human != 0)
    want = float(np.mean(np.sign(human[rated]) == np.sign(judge[rated])))     # equal chances: a plain share
    assert abs(cs.value - want) < 1e-12
    assert cs.n_human_zero == int((kept & (human == 0)).sum()) > 10
    assert cs.ci is not None and cs.ci[0] <= want <= cs.ci[1]
