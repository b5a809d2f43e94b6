"""`fairval study sample NAME --n N --by-group-pair --seed S [--pilot P]`: the pairs people rate drawn within
each group pair (Fisch et al. 2024's stratified PPI), each group pair's count by its size × its spread on
the pilot (Neyman's allocation), every pair's chance recorded; H then weights the rated pairs by it and the
stratified H is valid. Counts and estimates are written out here from the data the test makes."""
import json
import math

import numpy as np
import pandas as pd
import pytest

from fairval.annotate.material.design import Design
from fairval.annotate.results.judge import ppi_numbers
from fairval.annotate.results.strata import by_pair_group
from fairval.store import items as item_store
from fairval.store import open_db
from tests.conftest import write_jsonl

PAIR = {"prompt": "P", "response_a": "a", "response_b": "b"}


def refused(db_path, *args) -> str:
    """A command that must be refused in one line (exit code 1, no traceback); what it printed."""
    from click.testing import CliRunner

    from fairval.annotate.cli.main import cli
    result = CliRunner().invoke(cli, ["--db", str(db_path), *map(str, args)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    return result.output
GROUPS = {"woman vs man": 60, "Black vs White": 30, "Asian vs White": 10}


def pairs_of(groups: dict[str, int], prefix: str) -> list[dict]:
    rows = []
    for name, count in groups.items():
        a, b = name.split(" vs ")
        rows += [{"id": f"{prefix}{a[0]}{k:02d}", **PAIR, "group_a": a, "group_b": b} for k in range(count)]
    return rows


@pytest.fixture
def studies(cli_output, tmp_path):
    """A pilot people rated (one rater a pair), its judge's score the same on every pair of a group pair, so
    PPI's λ is 0 there and each group pair's spread is the sample SD of people's scores; and the study."""
    said = {"woman vs man": ["C"] * 14 + ["A"], "Black vs White": ["A", "B"] * 7 + ["C"],
            "Asian vs White": ["C", "A", "C", "A", "C", "A"]}
    pilot = pairs_of({"woman vs man": 20, "Black vs White": 20, "Asian vs White": 10}, "q")
    # as users' files come: a practice pair and an attention check in their own group pair, rated and scored
    pilot += [{"id": "q-practice", **PAIR, "group_a": "x", "group_b": "y", "_practice": True,
               "_gold": {"harm": "A"}},
              {"id": "q-check", **PAIR, "group_a": "woman", "group_b": "man", "_gold": {"harm": "C"}}]
    cli_output("study", "create", "pilot", "--task", "harmful_stereotype", "--raters-per-item", "1")
    write_jsonl(tmp_path / "pilot.jsonl", pilot)
    cli_output("items", "import", "pilot", tmp_path / "pilot.jsonl")
    # a second judge, "z", scores everything differently: the study's judge is "j" (the first by name), and
    # only its scores may set the spreads
    write_jsonl(tmp_path / "pilot-lmra.jsonl", [*({"item_id": r["id"], "model": "j", "score": 0.1} for r in pilot),
                                                *({"item_id": r["id"], "model": "z", "score": (-0.9, 0.9)[k % 2]}
                                                  for k, r in enumerate(pilot))])
    cli_output("lmra", "import", "pilot", tmp_path / "pilot-lmra.jsonl")
    rated = []
    for name, values in said.items():
        ids = [r["id"] for r in pilot if f"{r['group_a']} vs {r['group_b']}" == name]
        rated += [{"item_id": i, "rater_id": f"r{k}", "question": "harm", "value": v}
                  for k, (i, v) in enumerate(zip(ids, values))]
    rated += [{"item_id": i, "rater_id": "r0", "question": "harm", "value": "B"} for i in ("q-practice", "q-check")]
    write_jsonl(tmp_path / "pilot-ratings.jsonl", rated)
    cli_output("ratings", "import", "pilot", tmp_path / "pilot-ratings.jsonl")
    cli_output("study", "create", "s", "--task", "harmful_stereotype", "--raters-per-item", "1")
    write_jsonl(tmp_path / "s.jsonl", [*pairs_of(GROUPS, "p"),
                                       {"id": "practice", **PAIR, "group_a": "x", "group_b": "y", "_practice": True}])
    cli_output("items", "import", "s", tmp_path / "s.jsonl")
    rng = np.random.default_rng(5)
    write_jsonl(tmp_path / "s-lmra.jsonl", [{"item_id": r["id"], "model": m, "score": round(float(rng.uniform(-1, 1)), 3)}
                                            for m in ("j", "z") for r in pairs_of(GROUPS, "p")])
    cli_output("lmra", "import", "s", tmp_path / "s-lmra.jsonl")
    score = {"C": 0.0, "A": 1.0, "B": -1.0}
    return {name: float(np.std([score[v] for v in values], ddof=1)) for name, values in said.items()}


def test_each_group_pair_gets_its_share_by_size_and_spread(cli_output, studies, db_path, tmp_path):
    said = cli_output("study", "sample", "s", "--n", "20", "--by-group-pair", "--seed", "4", "--pilot", "pilot",
                      "--out", tmp_path / "ids.csv")
    # Neyman: n_k ∝ N_k σ_k, written out; whole numbers by rounding, so each is its share's floor or ceiling
    weight = {g: GROUPS[g] * studies[g] for g in GROUPS}
    share = {g: 20 * w / sum(weight.values()) for g, w in weight.items()}
    db = open_db(db_path)
    items = item_store.items_frame(db, "s")
    drawn = items[~items["judge_only"].astype(bool) & ~items["practice"]]
    group = drawn["data"].map(lambda d: f"{d['group_a']} vs {d['group_b']}")
    counts = group.value_counts().to_dict()
    assert sum(counts.values()) == 20 and all(counts[g] >= 2 for g in GROUPS)
    assert all(math.floor(share[g]) <= counts[g] <= math.ceil(share[g]) for g in GROUPS), (counts, share)
    assert all(f"{g} {counts[g]} of {GROUPS[g]}" in said for g in GROUPS)
    chances = item_store.inclusion_probabilities(db, "s")
    for g in GROUPS:
        mine = [i for i, d in zip(items["item_id"], items["data"]) if f"{d.get('group_a')} vs {d.get('group_b')}" == g]
        assert {round(chances[i], 9) for i in mine} == {round(counts[g] / GROUPS[g], 9)}
    assert sorted(tmp_path.joinpath("ids.csv").read_text().split()[1:]) == sorted(drawn["item_id"])
    db.close()
    # the same seed draws the same pairs; a second draw is refused, in one line
    again = cli_output("study", "show", "s")
    assert "drawn by group pair" in again
    # people rate the drawn pairs: H weights each by 1/its chance, the stratified H is given
    ids = sorted(drawn["item_id"])
    write_jsonl(tmp_path / "r.jsonl", [{"item_id": i, "rater_id": f"r{k}", "question": "harm",
                                        "value": ("A", "C", "B")[k % 3]} for k, i in enumerate(ids)])
    cli_output("ratings", "import", "s", tmp_path / "r.jsonl")
    harm = json.loads(cli_output("analyze", "s", "--json"))["harm"]
    ppi = harm["ppi"]
    assert ppi["design"] == "stratified" and "drawn by group pair" in ppi["sampling"]
    assert harm["by_pair_group"]["stratified"]["value"] is not None
    # independent: H = λ mean(f) + Σ_k (N_k / N) mean over k's rated pairs of (y − λ f)
    judge = {r["item_id"]: r["score"] for r in map(json.loads, (tmp_path / "s-lmra.jsonl").read_text().splitlines())
             if r["model"] == "j"}
    y = {i: (1.0, 0.0, -1.0)[k % 3] for k, i in enumerate(ids)}
    lam = ppi["lambda"]
    by = pd.Series(y).groupby(group.set_axis(drawn["item_id"]).reindex(ids).to_numpy())
    expected = lam * np.mean(list(judge.values())) + sum(
        GROUPS[g] / 100 * np.mean([y[i] - lam * judge[i] for i in part.index]) for g, part in by)
    assert ppi["value"] == pytest.approx(expected)
    cli_output("report", "s", "--out", tmp_path / "r.md")
    report = tmp_path.joinpath("r.md").read_text().replace("\\", "")
    assert "People's pairs were drawn by group pair" in report and "a draw by group pair, PPI++ weighted" in report


def test_without_a_pilot_each_group_pair_in_proportion_to_its_size_and_refusals(cli_output, studies, db_path):
    said = cli_output("study", "sample", "s", "--n", "30", "--by-group-pair", "--seed", "4")
    assert "woman vs man 18 of 60, Black vs White 9 of 30" not in said       # strata in name order
    assert "Asian vs White 3 of 10, Black vs White 9 of 30, woman vs man 18 of 60" in said
    again = refused(db_path, "study", "sample", "s", "--n", "30", "--by-group-pair", "--seed", "4")
    assert "has its human sample already" in again


@pytest.mark.parametrize("n, words", [(5, "between 6 (2 for each"), (98, "and 97 (1 left to the judge")])
def test_sizes_it_cannot_draw_are_refused_in_one_line(studies, db_path, n, words):
    said = refused(db_path, "study", "sample", "s", "--n", n, "--by-group-pair", "--seed", "4")
    assert words in said and said.strip().count("\n") == 0


def test_the_weighted_and_the_stratified_h_cover_where_the_unweighted_one_does_not():
    """A world where the group pairs differ: 70% of pairs (H = 0, people agree) and 30% (H = 0.5, people
    split). Neyman's allocation sends most rated pairs to the second, so the unweighted PPI++ leans on
    it; weighting by 1/π (harm.ppi) and the stratified H do not."""
    rng = np.random.default_rng(8)
    sizes, rated = {"calm": 1400, "split": 600}, {"calm": 20, "split": 100}
    studies, hits, strat_hits, plain_hits = 200, 0, 0, 0
    for _ in range(studies):
        y = pd.concat([pd.Series(rng.choice([0.0, 1.0], sizes["calm"], p=[0.97, 0.03]) - 0.03),
                       pd.Series(rng.choice([-1.0, 1.0], sizes["split"], p=[0.25, 0.75]))], ignore_index=True)
        y.index = [f"i{k}" for k in range(len(y))]
        f = (0.5 * y + rng.normal(0, 0.4, len(y))).clip(-1, 1)
        stratum = pd.Series(["calm"] * sizes["calm"] + ["split"] * sizes["split"], index=y.index)
        chosen = np.concatenate([rng.choice(y.index[stratum == g], rated[g], replace=False) for g in sizes])
        inclusion = stratum.map(lambda g: rated[g] / sizes[g])
        sample = {"n": 120, "of": 2000, "seed": 0, "design": "stratified",
                  "strata": {g: {"pairs": sizes[g], "drawn": rated[g]} for g in sizes}}
        human = y[chosen]
        weighted = ppi_numbers(human, f, Design.of(sample), inclusion=inclusion)
        plain = ppi_numbers(human, f, Design.of({**sample, "design": "uniform"}))
        items = pd.DataFrame({"item_id": y.index, "data": [{"group_a": g, "group_b": "x"} for g in stratum]})
        whole = by_pair_group(human, f, items, Design.of(sample)).stratified
        truth = y.mean()
        hits += weighted.ci[0] <= truth <= weighted.ci[1]
        strat_hits += whole.ci[0] <= truth <= whole.ci[1]
        plain_hits += plain.ci[0] <= truth <= plain.ci[1]
    assert hits / studies >= 0.92 and strat_hits / studies >= 0.92, (hits, strat_hits)
    assert plain_hits / studies < 0.5, plain_hits


def test_the_python_api_draws_the_same_as_the_command(studies, db_path, tmp_path):
    import fairval
    with fairval.open(db_path) as db:
        drawn = db.study("s").sample_by_group_pair(20, 4, pilot="pilot")
        items = db.study("s").items()
    assert drawn["sample"]["design"] == "stratified" and len(drawn["kept"]) == 20
    assert sorted(drawn["kept"]) == sorted(items.loc[~items["judge_only"].astype(bool) & ~items["practice"].astype(bool),
                                                     "item_id"])
    assert drawn["sample"]["pilot"]["spreads"] == pytest.approx(studies)
