"""Every number from the right items and the right answers, on a study built as a researcher's is: real
pairs with practice and attention-check pairs mixed in, pairs shown flipped at 0.5, three raters, two
judges with ties in their scores. Adding practice items, gold items or a second judge leaves every
number of the main study unchanged; gold pairs seen flipped are marked by their meaning; an export
never borrows another judge's score; the statistics match independent computations."""
import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from fairval.analysis.judge_map import fit_isotonic
from fairval.analysis.judge_validity import human_ceiling
from fairval.analysis.planner import fisher_width, plan
from fairval.annotate.crowd.prolific import review
from fairval.annotate.material.design import Design
from fairval.annotate.material.importers import import_items, import_lmra, import_ratings
from fairval.annotate.material.pairs import draw_flip
from fairval.annotate.material.studies import create_study
from fairval.annotate.outputs.export import export_validated
from fairval.annotate.results.numbers import study_numbers
from tests.conftest import write_jsonl

RATERS = ("r1", "r2", "r3")
REAL = [f"p{k}" for k in range(10)]
TRUE_ANSWER = {p: "ABC"[k % 3] for k, p in enumerate(REAL)}           # in true order
GOLD = {"g1": "A", "g2": "B"}                                           # expected, in true order


def pair(i):
    return {"id": i, "prompt": f"Prompt {i}", "response_a": f"a {i}", "response_b": f"b {i}",
            "group_a": "woman", "group_b": "man"}


def shown(answer: str, flipped: bool) -> str:
    return {"A": "B", "B": "A"}.get(answer, answer) if flipped else answer


def build(db, folder, name, *, extras: bool):
    """extras: a practice pair, two gold pairs with everyone's (right) answers, and a second judge."""
    create_study(db, name, "harmful_stereotype", raters_per_item=3, seed=7)
    rows = [pair(i) for i in REAL]
    if extras:
        rows += [{**pair("practice"), "_practice": True, "_gold": {"harm": "C"}}]
        rows += [{**pair(g), "_gold": {"harm": a}} for g, a in GOLD.items()]
    import_items(db, name, write_jsonl(folder / f"{name}-items.jsonl", rows))
    ratings = []
    for k, rater in enumerate(RATERS):
        items = list(REAL) + ([*list(GOLD), "practice"] if extras else [])
        for i in items:
            truth = TRUE_ANSWER.get(i) or GOLD.get(i) or "C"
            if i in REAL and (k + int(i[1:])) % 4 == 0:                   # some disagreement
                truth = "C" if truth != "C" else "A"
            flipped = draw_flip(7, "shared", rater, i, 0.5)          # the same screens in both studies
            ratings.append({"item_id": i, "rater_id": rater, "question": "harm", "value": shown(truth, flipped),
                            "flipped": int(flipped), "seconds": 12})
    import_ratings(db, name, write_jsonl(folder / f"{name}-ratings.jsonl", ratings))
    # the main judge ("alpha") has ties; the second judge ("zeta") scored everything, alpha all but p9
    scores = [{"item_id": i, "model": "alpha", "score": [0.5, -0.5, 0.0, 0.5][k % 4]}
              for k, i in enumerate(REAL[:-1])]
    if extras:
        scores += [{"item_id": i, "model": "alpha", "score": 0.9} for i in ["practice", *GOLD]]
        scores += [{"item_id": i, "model": "zeta", "score": -0.7} for i in [*REAL, "practice", *GOLD]]
    import_lmra(db, name, write_jsonl(folder / f"{name}-lmra.jsonl", scores))
    return name


def main_numbers(numbers: dict) -> dict:
    """Everything a paper reports of the main study (the list of judges aside, and the crowd model's check
    against the attention checks, which is fitted on the checks' answers too by design)."""
    lmra = {k: v for k, v in numbers["lmra"].items() if k != "by_model"}
    questions = {q: {k: v for k, v in block.items() if k != "crowd_model"} for q, block in numbers["questions"].items()}
    return ({k: numbers[k] for k in ("n_items", "n_raters", "n_ratings", "harm")}
            | {"lmra": lmra, "questions": questions})


@pytest.fixture
def studies(db, tmp_path):
    return build(db, tmp_path, "plain", extras=False), build(db, tmp_path, "mixed", extras=True)


def test_practice_gold_and_a_second_judge_change_no_number_of_the_main_study(db, studies):
    plain, mixed = (study_numbers(db, s, n_boot=200).to_dict() for s in studies)
    assert plain["n_ratings"] == 30 and plain["lmra"]["n_items"] == 9 and plain["lmra"]["model"] == "alpha"
    assert main_numbers(mixed) == main_numbers(plain)
    assert mixed["harm"]["ppi"]["n_unlabelled"] == 0                  # no gold or practice pair as unlabelled
    assert set(mixed["lmra"]["by_model"]) == {"alpha", "zeta"}
    other = study_numbers(db, "mixed", n_boot=200, model="zeta").to_dict()
    assert other["lmra"]["model"] == "zeta" and other["lmra"]["n_items"] == 10


def test_gold_pairs_seen_flipped_are_marked_by_their_meaning(db, studies):
    flips = [draw_flip(7, "shared", r, g, 0.5) for r in RATERS for g in GOLD]
    assert any(flips) and not all(flips)                              # some gold pairs were seen flipped
    raters = {r["rater_id"]: r for r in study_numbers(db, "mixed", n_boot=0).to_dict()["raters"]}
    assert {r: q["gold_accuracy"] for r, q in raters.items()} == dict.fromkeys(RATERS, 1.0)
    assert all(not q["flags"] for q in raters.values())
    assert set(review(db, "mixed")["suggestion"]) == {"approve"}


def test_an_export_carries_one_judges_scores_and_names_it(db, studies, tmp_path):
    sidecar = export_validated(db, "mixed", tmp_path / "pairs.csv")
    table = pd.read_csv(tmp_path / "pairs.csv")
    assert sidecar["model"] == "alpha" and list(table["item_id"]) == REAL
    assert table.loc[table["item_id"] == "p9", "lmra_score"].isna().all()      # not zeta's -0.7
    sidecar = export_validated(db, "mixed", tmp_path / "zeta.csv", model="zeta")
    assert sidecar["model"] == "zeta" and set(pd.read_csv(tmp_path / "zeta.csv")["lmra_score"]) == {-0.7}


def test_the_sampling_sentence_tells_an_unscored_pair_from_an_unrated_one(db, studies):
    from fairval.annotate.results.judge import ppi_numbers
    human = pd.Series({"p0": 0.5, "p1": 0.0, "p2": -1.0})
    judge = pd.Series({"p0": 0.4, "p1": 0.1, "p5": 0.2})
    text = ppi_numbers(human, judge, Design.of({"n": 3, "of": 10, "seed": 1})).sampling
    assert "no rating yet" not in text and "1 rated pair(s) have no judge score" in text


def test_the_isotonic_map_is_the_least_squares_monotone_fit_with_ties():
    rng = np.random.default_rng(3)
    judge = rng.choice(np.linspace(-1, 1, 9), 160)                    # 9 distinct scores over 160 pairs
    human = np.clip(0.6 * judge + rng.normal(0, 0.5, 160), -1, 1)
    table = fit_isotonic(judge, human)
    knots = np.array(table["x"])
    # independent: the same problem as a constrained least-squares fit (SLSQP), one value per knot
    index = np.searchsorted(knots, judge)
    sse = lambda f: float(((human - f[index]) ** 2).sum())            # noqa: E731
    start = np.full(len(knots), human.mean())
    best = optimize.minimize(sse, start, method="SLSQP", constraints=[
        {"type": "ineq", "fun": lambda f: np.diff(f)}], options={"ftol": 1e-12, "maxiter": 500})
    assert sse(np.array(table["y"])) <= best.fun + 1e-8
    assert np.allclose(table["y"], best.x, atol=1e-4)


def test_the_split_half_ceiling_is_unbiased_with_three_raters():
    lam, k, values = 1.5, 3, []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        truth = rng.normal(size=1500)
        frame = pd.DataFrame([(i, f"r{j}", truth[i] + rng.normal(scale=np.sqrt(lam)))
                              for i in range(1500) for j in range(k)], columns=["item_id", "rater_id", "score"])
        values.append(human_ceiling(frame, 0, seed).value)
    true = 1 / (1 + lam / k)                                           # the reliability of 3 raters' mean
    assert abs(np.mean(values) - true) < 0.012, (np.mean(values), true)


def test_the_pilot_planner_matches_a_simulation_of_the_same_model_at_the_pilots_raters():
    rng = np.random.default_rng(5)

    def study(n, k):
        truth = rng.normal(size=n)
        ratings = truth[:, None] + rng.normal(size=(n, k))
        judge = 0.8 * truth + rng.normal(scale=0.6, size=n)
        return ratings, judge

    pilot, judge = study(300, 3)
    frame = pd.DataFrame([(f"i{i}", f"r{j}", pilot[i, j]) for i in range(300) for j in range(3)],
                         columns=["item_id", "rater_id", "score"])
    planned = plan(frame, pd.Series(judge, index=[f"i{i}" for i in range(300)]), pairs=(400,), raters=(3,),
                   draws=300, seed=1)["rho_width"].iloc[0]
    widths = []
    for _ in range(300):                                               # fresh studies of 400 × 3
        ratings, f = study(400, 3)
        widths.append(fisher_width(np.array([np.corrcoef(ratings.mean(axis=1), f)[0, 1]]), 400)[0])
    assert 0.93 < planned / np.mean(widths) < 1.07, (planned, np.mean(widths))


def test_the_docs_say_which_items_each_number_uses():
    from tests.conftest import ROOT
    text = (ROOT / "docs" / "commands.md").read_text()
    section = text.split("## Which items each number uses", 1)[1].split("\n## ", 1)[0]
    for word in ("practice", "gold", "judge-only", "main_judge", "--model"):
        assert word in section, word
