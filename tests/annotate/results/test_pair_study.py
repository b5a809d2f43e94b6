"""A pair study imported from files and analysed through the CLI, checked against hand computation;
and the flip invariance of every number, over whole studies."""
import csv
import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairval.annotate.cli.main import cli
from fairval.annotate.material.importers import import_items, import_lmra, import_ratings
from fairval.annotate.material.studies import create_study
from fairval.annotate.material.tasks import get_task
from fairval.annotate.results.numbers import study_numbers
from fairval.store import open_db
from tests.annotate.material.test_pairs import shown_value
from tests.conftest import write_jsonl

PAIRS = [{"id": f"p{i}", "prompt": f"prompt {i}", "response_a": f"a{i}", "response_b": f"b{i}",
          "group_a": "woman", "group_b": "man"} for i in range(1, 5)]
# (rater, item, shown value, flipped): canonical values by hand in the comments
RATINGS = [("r1", "p1", "B", 1), ("r2", "p1", "A", 0), ("r3", "p1", "C", 1),   # +1 +1 0
           ("r1", "p2", "B", 0), ("r2", "p2", "C", 0), ("r3", "p2", "C", 1),   # -1 0 0
           ("r1", "p3", "C", 0), ("r2", "p3", "C", 1), ("r3", "p3", "C", 0),   # 0 0 0
           ("r1", "p4", "A", 0), ("r2", "p4", "A", 1), ("r3", "p4", "B", 1)]   # +1 -1 +1
GENDER = {"r1": "female", "r2": "male", "r3": "female"}


def test_pair_study_from_files_matches_hand_computation(db_path, tmp_path):
    write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    with open(tmp_path / "lmra.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["item_id", "model", "score", "p_a", "p_b", "p_c", "q_a", "q_b", "q_c"])
        w.writerow(["p1", "judge", "0.8", "", "", "", "", "", ""])
        w.writerow(["p2", "judge", "", "0.2", "0.5", "0.3", "0.6", "0.1", "0.3"])
        w.writerow(["p3", "judge", "0.1", "", "", "", "", "", ""])
        w.writerow(["p4", "judge", "0.2", "", "", "", "", "", ""])
    write_jsonl(tmp_path / "ratings.jsonl", [
        {"item_id": i, "rater_id": r, "question": "harm", "value": v, "flipped": f, "rater_gender": GENDER[r]}
        for r, i, v, f in RATINGS])
    runner = CliRunner()
    for args in (["study", "create", "fp", "--task", "harmful_stereotype"],
                 ["items", "import", "fp", tmp_path / "pairs.jsonl"],
                 ["lmra", "import", "fp", tmp_path / "lmra.csv"],
                 ["ratings", "import", "fp", tmp_path / "ratings.jsonl"]):
        result = runner.invoke(cli, ["--db", str(db_path), *map(str, args)])
        assert result.exit_code == 0, result.output
    result = runner.invoke(cli, ["--db", str(db_path), "analyze", "fp", "--json", "--bootstrap", "50"])
    numbers = json.loads(result.output)

    human = np.array([2 / 3, -1 / 3, 0.0, 1 / 3])
    p2 = (min(0.2, 0.1) - min(0.5, 0.6)) / (min(0.2, 0.1) + min(0.5, 0.6) + min(0.3, 0.3))
    lmra = np.array([0.8, p2, 0.1, 0.2])
    assert p2 == pytest.approx(-0.4 / 0.9)
    lm = numbers["lmra"]
    assert lm["pearson_r"] == pytest.approx(np.corrcoef(human, lmra)[0, 1])
    # p3's human mean is 0: no direction to agree with, left out of sign agreement (issue 53)
    assert lm["sign_agreement"] == 1.0 and lm["n_human_zero"] == 1
    assert lm["n_items"] == 4 and len(lm["pearson_ci"]) == 2
    assert numbers["harm"]["human"] == pytest.approx(human.mean())
    assert numbers["harm"]["lmra"] == pytest.approx(lmra.mean())
    female, male = (lm["by_rater_group"]["gender"][g] for g in ("female", "male"))
    # female means 0.5, -0.5, 0, 1 (p3 left out: 3 of 3); male 1, 0, 0, -1 (p2, p3 left out: 1 of 2)
    assert female["sign_agreement"] == 1.0 and male["sign_agreement"] == 0.5
    assert female["pearson_r"] == pytest.approx(np.corrcoef([0.5, -0.5, 0, 1], lmra)[0, 1])
    assert male["pearson_r"] == pytest.approx(np.corrcoef([1, 0, 0, -1], lmra)[0, 1])
    harm = numbers["questions"]["harm"]
    assert harm["level"] == "interval" and harm["n"] == 12
    assert harm["distribution"] == {"1": 4, "-1": 2, "0": 6}


HARM = get_task("harmful_stereotype").question("harm")


def build(folder: Path, name: str, ratings: list[tuple], lmra: list[float]) -> dict:
    db = open_db(folder / f"{name}.db")
    create_study(db, name, "harmful_stereotype", seed=1)
    import_items(db, name, write_jsonl(folder / f"{name}-items.jsonl", PAIRS))
    import_lmra(db, name, write_jsonl(folder / f"{name}-lmra.jsonl", [
        {"item_id": p["id"], "model": "m", "score": s} for p, s in zip(PAIRS, lmra)]))
    import_ratings(db, name, write_jsonl(folder / f"{name}-ratings.jsonl", [
        {"item_id": i, "rater_id": r, "question": "harm", "value": shown_value(HARM, c, f), "flipped": int(f),
         "rater_gender": g} for r, i, c, f, g in ratings]))
    out = study_numbers(db, name, n_boot=50).to_dict()
    db.close()
    return out


rating_rows = st.lists(st.tuples(st.sampled_from(["r1", "r2", "r3", "r4"]), st.sampled_from(["p1", "p2", "p3", "p4"]),
                                 st.sampled_from(["1", "0", "-1"]), st.booleans(),
                                 ), min_size=4, max_size=16, unique_by=lambda t: (t[0], t[1]))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rating_rows, st.lists(st.floats(-1, 1, allow_nan=False), min_size=4, max_size=4))
def test_flipping_every_pair_with_its_answers_changes_no_number(rows, lmra):
    gender = {"r1": "female", "r2": "male", "r3": "female", "r4": "male"}
    original = [(r, i, c, f, gender[r]) for r, i, c, f in rows]
    flipped = [(r, i, c, not f, gender[r]) for r, i, c, f in rows]
    with tempfile.TemporaryDirectory() as tmp:
        a = build(Path(tmp), "a", original, lmra)
        b = build(Path(tmp), "b", flipped, lmra)
    a.pop("study"), b.pop("study")
    # where Response 1 was is the one thing flipping changes on purpose: the order effects say how often
    # people chose the first position, so they are compared as mirror images
    order_a, order_b = a["lmra"].pop("order"), b["lmra"].pop("order")
    for model in (a["lmra"].get("by_model") or {}):
        a["lmra"]["by_model"][model].pop("order"), b["lmra"]["by_model"][model].pop("order")
    if order_a["humans_first_share"] is not None:
        assert order_a["humans_first_share"] == pytest.approx(1 - order_b["humans_first_share"])
    assert a == b


def test_feature_label_study_is_calibrated_like_harm(db, tmp_path):
    create_study(db, "fl", "feature_label")
    import_items(db, "fl", write_jsonl(tmp_path / "f.jsonl", [{**p, "axis_question": "Which is longer?"}
                                                              for p in PAIRS]))
    import_lmra(db, "fl", write_jsonl(tmp_path / "l.jsonl", [
        {"item_id": p["id"], "model": "m", "score": s} for p, s in zip(PAIRS, [0.6, -0.2, 0.1, 0.3])]))
    # (rater, item, shown, flipped) -> canonical: A->+1 (A-group's response), B->-1, C->0
    rows = [("r1", "p1", "A", 0), ("r2", "p1", "B", 1),     # +1 +1
            ("r1", "p2", "A", 1), ("r2", "p2", "C", 0),     # -1  0
            ("r1", "p3", "C", 0), ("r2", "p3", "A", 0),     #  0 +1
            ("r1", "p4", "B", 1), ("r2", "p4", "B", 0)]     # +1 -1
    import_ratings(db, "fl", write_jsonl(tmp_path / "r.jsonl", [
        {"item_id": i, "rater_id": r, "question": "feature", "value": v, "flipped": f} for r, i, v, f in rows]))
    numbers = study_numbers(db, "fl", n_boot=0).to_dict()
    human, lmra = np.array([1.0, -0.5, 0.5, 0.0]), np.array([0.6, -0.2, 0.1, 0.3])
    assert numbers["lmra"]["pearson_r"] == pytest.approx(np.corrcoef(human, lmra)[0, 1])
    assert numbers["lmra"]["sign_agreement"] == pytest.approx(1.0)        # p4: people's 0 is left out
    assert numbers["feature_difference"]["human"] == pytest.approx(human.mean())
    assert "harm" not in numbers


def test_each_rater_group_gets_the_agreement_numbers_with_intervals(tmp_path):
    """004 Fig. 6: per rater group, the same numbers from that group's own per-pair mean."""
    from fairval.analysis import judge_validity as jv
    from fairval.analysis.calibration import human_scores
    rows = [(r, i, c, False, g) for r, g in (("f1", "female"), ("f2", "female"), ("m1", "male"))
            for i, c in zip(["p1", "p2", "p3", "p4"], (["1", "0", "-1", "1"] if g == "female" else ["0", "0", "1", "-1"]))]
    numbers = build(tmp_path, "g", rows, [0.6, 0.1, -0.4, 0.3])
    female = numbers["lmra"]["by_rater_group"]["gender"]["female"]
    frame = pd.DataFrame([(i, r, float(c)) for r, i, c, _, g in rows if g == "female"],
                         columns=["item_id", "rater_id", "canonical"])
    judge = pd.Series([0.6, 0.1, -0.4, 0.3], index=["p1", "p2", "p3", "p4"])
    want = jv.rank_correlation(human_scores(frame), judge, "spearman")
    assert female["spearman"]["value"] == pytest.approx(want.value)
    assert female["spearman"]["ci"] == pytest.approx(list(want.ci)) and female["spearman"]["n"] == 4
    assert female["sign_agreement_ci"] == pytest.approx(list(jv.sign_agreement(human_scores(frame), judge).ci))
    assert "p_holm" in female
    from fairval.analysis.ppi import ppi_mean
    group_human = human_scores(frame)                          # every pair rated by the group: no judge-only pairs
    assert female["ppi"]["n_labelled"] == len(group_human) and female["ppi"]["n_unlabelled"] == 0
    assert female["ppi"]["human_only"]["value"] == pytest.approx(group_human.mean())
    assert ppi_mean(group_human.to_numpy(), judge[group_human.index].to_numpy(), []).reason
