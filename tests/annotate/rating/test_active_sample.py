"""`fairval study sample --active --budget N`: pairs drawn where the judge is least sure, each pair's chance
recorded, only the drawn pairs served, and `analyze` weighting each rated pair by 1/π, with the anytime
intervals beside it."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

from fairval.analysis.active import active_ppi_mean, inclusion_probabilities, judge_uncertainty
from fairval.annotate.cli.main import cli
from fairval.store import items as item_store
from fairval.store import open_db
from tests.conftest import write_jsonl

SURE = {"p_a": 0.02, "p_b": 0.02, "p_c": 0.96, "q_a": 0.02, "q_b": 0.02, "q_c": 0.96}
UNSURE = {"p_a": 0.45, "p_b": 0.25, "p_c": 0.30, "q_a": 0.35, "q_b": 0.35, "q_c": 0.30}


@pytest.fixture
def pairs(cli_output, tmp_path):
    """80 pairs, the judge sure of the first 40 (no difference) and unsure of the rest; a practice item
    and an attention check beside them, and a second judge, as users' files come."""
    cli_output("study", "create", "s", "--task", "harmful_stereotype", "--raters-per-item", "2")
    pair = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": f"p{k:02d}", **pair} for k in range(80)] + [
        {"id": "practice", "_practice": True, "_gold": {"harm": "C"}, **pair},
        {"id": "check", "_gold": {"harm": "C"}, **pair}])
    cli_output("items", "import", "s", tmp_path / "pairs.jsonl")
    everything = [f"p{k:02d}" for k in range(80)] + ["practice", "check"]
    write_jsonl(tmp_path / "lmra.jsonl",
                [{"item_id": i, "model": "j", **(SURE if i < "p40" or i in ("practice", "check") else UNSURE)}
                 for i in everything]
                + [{"item_id": i, "model": "k", "score": 0.1} for i in everything])    # a second judge
    cli_output("lmra", "import", "s", tmp_path / "lmra.jsonl")
    return tmp_path


def test_the_draw_favours_the_pairs_the_judge_is_unsure_of_and_records_every_chance(cli_output, pairs, db_path):
    said = cli_output("study", "sample", "s", "--active", "--budget", "30", "--seed", "7")
    assert "least sure" in said
    db = open_db(db_path)
    chances = item_store.inclusion_probabilities(db, "s")
    left = item_store.judge_only_ids(db, "s")
    settings = json.loads(db.scalar("SELECT settings FROM studies WHERE study_id = 's'"))["human_sample"]
    db.close()
    u = np.array([judge_uncertainty(SURE if k < 40 else UNSURE, 0.0) for k in range(80)])
    want = inclusion_probabilities(u, 30)                      # the same rule, from the stored probabilities
    assert [chances[f"p{k:02d}"] for k in range(80)] == pytest.approx(list(want))
    assert chances["p79"] > 1.5 * chances["p00"] and sum(chances.values()) == pytest.approx(30)
    drawn = sorted(set(chances) - left)
    assert settings["design"] == "active" and settings["n"] == len(drawn) and settings["budget"] == 30
    expected = np.random.default_rng(7).random(80) < want      # the draw is the seeded one it reports
    assert drawn == [f"p{k:02d}" for k in range(80) if expected[k]]


def test_analyze_weights_the_rated_pairs_and_gives_anytime_intervals(cli_output, pairs, db_path, tmp_path):
    cli_output("study", "sample", "s", "--active", "--budget", "30", "--seed", "7")
    cli_output("study", "set", "s", "target_ci_width=0.2")
    db = open_db(db_path)
    chances = item_store.inclusion_probabilities(db, "s")
    drawn = sorted(set(chances) - item_store.judge_only_ids(db, "s"))
    db.close()
    rng = np.random.default_rng(1)
    answers = {i: rng.choice(["A", "B", "C"], 2, p=[0.3, 0.2, 0.5] if i >= "p40" else [0.02, 0.02, 0.96])
               for i in drawn}
    shown = {"A": "B", "B": "A", "C": "C"}        # what a rater who saw the pair flipped clicked
    write_jsonl(tmp_path / "ratings.jsonl", [{"item_id": i, "rater_id": f"r{r}", "question": "harm",
                                              "value": shown[v] if r == 1 else v, "flipped": r == 1}
                                             for i, vs in answers.items() for r, v in enumerate(vs)])
    cli_output("ratings", "import", "s", tmp_path / "ratings.jsonl")
    out = json.loads(cli_output("analyze", "s", "--json", "--bootstrap", "0"))
    ppi = out["harm"]["ppi"]
    score = {"A": 1.0, "B": -1.0, "C": 0.0}
    human = np.array([np.mean([score[v] for v in answers[i]]) for i in drawn])
    db = open_db(db_path)
    scores = dict(db.execute("SELECT item_id, score FROM lmra_scores WHERE study_id = 's' AND model = 'j'").fetchall())
    db.close()
    everything = sorted(chances)
    want = active_ppi_mean(human, np.array([scores[i] for i in drawn]), np.array([chances[i] for i in drawn]),
                           np.array([scores[i] for i in everything]), np.array([chances[i] for i in everything]))
    assert ppi["design"] == "active" and ppi["value"] == pytest.approx(want.value)
    assert ppi["ci"] == pytest.approx(list(want.ci)) and "weighted by 1/its chance" in ppi["sampling"]
    cs = ppi["cs"]
    assert cs["n_pairs_complete"] == len(drawn) and cs["ci"][0] <= cs["value"] <= cs["ci"][1]
    assert cs["ci"][1] - cs["ci"][0] > ppi["ci"][1] - ppi["ci"][0]      # valid at every look costs width
    assert cs["target_width"] == 0.2 and (cs["more_judgments"] is None or cs["more_judgments"] == 2 * cs["more_pairs"])
    agree = out["lmra"]["sign_agreement_cs"]
    assert agree["n_pairs_complete"] == len(drawn) and 0 <= agree["ci"][0] <= agree["ci"][1] <= 1


@pytest.mark.parametrize("args, message", [
    (["--active", "--seed", "1"], "--budget"),
    (["--active", "--budget", "10", "--n", "5", "--seed", "1"], "--budget"),
    (["--budget", "10", "--seed", "1"], "--n"),
    (["--active", "--budget", "80", "--seed", "1"], "between 1 and 79"),
    (["--active", "--budget", "10", "--model", "other", "--seed", "1"], "no scores from 'other'"),
])
def test_an_active_draw_that_cannot_be_made_is_refused_and_changes_nothing(pairs, db_path, args, message):
    result = CliRunner().invoke(cli, ["--db", str(db_path), "study", "sample", "s", *args])
    assert result.exit_code != 0 and message in result.output
    db = open_db(db_path)
    assert item_store.inclusion_probabilities(db, "s") == {} and item_store.judge_only_ids(db, "s") == set()
    db.close()


def _pilot_study(cli_output, tmp_path, name: str, related: bool, pairs: int = 40):
    """A pair study people rated, scored by the same judge: where the judge is unsure people split A/B
    (its errors large) and where it is sure they say C (related), or the other way round (unrelated)."""
    cli_output("study", "create", name, "--task", "harmful_stereotype", "--raters-per-item", "2")
    pair = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
    write_jsonl(tmp_path / f"{name}.jsonl", [{"id": f"q{k:02d}", **pair} for k in range(pairs)])
    cli_output("items", "import", name, tmp_path / f"{name}.jsonl")
    unsure = [k % 2 == 1 for k in range(pairs)]
    write_jsonl(tmp_path / f"{name}-lmra.jsonl", [{"item_id": f"q{k:02d}", "model": "j", **(UNSURE if unsure[k] else SURE)}
                                                  for k in range(pairs)])
    cli_output("lmra", "import", name, tmp_path / f"{name}-lmra.jsonl")
    split = [(u if related else not u) and k % 4 < 2 for k, u in enumerate(unsure)]
    answers = {k: (["A", "A"] if k % 3 else ["B", "B"]) if split[k] else ["C", "C"] for k in range(pairs)}
    write_jsonl(tmp_path / f"{name}-ratings.jsonl", [
        {"item_id": f"q{k:02d}", "rater_id": f"r{r}", "question": "harm", "value": v}
        for k, vs in answers.items() for r, v in enumerate(vs)])
    cli_output("ratings", "import", name, tmp_path / f"{name}-ratings.jsonl")


def test_a_pilot_whose_judge_errs_where_unsure_chooses_the_mix(cli_output, pairs, db_path):
    _pilot_study(cli_output, pairs, "pilot", related=True)
    said = cli_output("study", "sample", "s", "--active", "--budget", "30", "--seed", "7", "--pilot", "pilot")
    assert "chosen from the 40 rated pairs of 'pilot'" in said
    db = open_db(db_path)
    settings = json.loads(db.scalar("SELECT settings FROM studies WHERE study_id = 's'"))["human_sample"]
    chances = item_store.inclusion_probabilities(db, "s")
    db.close()
    assert settings["floor"] < 1 and settings["pilot"]["study"] == "pilot" and settings["pilot"]["pairs"] == 40
    u = np.array([judge_uncertainty(SURE if k < 40 else UNSURE, 0.0) for k in range(80)])
    want = inclusion_probabilities(u, 30, floor=settings["floor"])
    assert [chances[f"p{k:02d}"] for k in range(80)] == pytest.approx(list(want))


def test_a_pilot_whose_judge_errs_where_it_is_sure_gives_a_uniform_draw(cli_output, pairs, db_path):
    _pilot_study(cli_output, pairs, "pilot", related=False)
    said = cli_output("study", "sample", "s", "--active", "--budget", "30", "--seed", "7", "--pilot", "pilot")
    assert "a uniform draw" in said
    db = open_db(db_path)
    chances = item_store.inclusion_probabilities(db, "s")
    db.close()
    assert set(np.round(list(chances.values()), 12)) == {round(30 / 80, 12)}


def test_a_pilot_too_small_is_refused_and_nothing_is_drawn(cli_output, pairs, db_path):
    _pilot_study(cli_output, pairs, "pilot", related=True, pairs=20)
    result = CliRunner().invoke(cli, ["--db", str(db_path), "study", "sample", "s", "--active", "--budget", "30",
                                      "--seed", "7", "--pilot", "pilot"])
    assert result.exit_code != 0 and "needs at least 30" in result.output
    db = open_db(db_path)
    assert item_store.inclusion_probabilities(db, "s") == {} and item_store.judge_only_ids(db, "s") == set()
    db.close()
