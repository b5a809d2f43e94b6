"""`fairval study sample --escalate --pilot P`: the threshold found on the pilot's rated pairs sends this
study's less confident pairs (and those with no confidence) to people and leaves the rest to the judge;
the numbers then give one label per pair and their H with the bias the guarantee allows, never PPI.
Every count is written out here from the data the test makes."""
import json
import re

import numpy as np
import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.store import items as item_store
from fairval.store import open_db
from tests.conftest import write_jsonl

PAIR = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
SURE_C = {"p_a": 0.02, "p_b": 0.02, "p_c": 0.96, "q_a": 0.02, "q_b": 0.02, "q_c": 0.96}
UNSURE_A = {"p_a": 0.5, "p_b": 0.2, "p_c": 0.3, "q_a": 0.2, "q_b": 0.5, "q_c": 0.3}      # swapped: B means A


def _pilot(cli_output, folder, name="pilot", rated=120):
    """A pilot people rated: the judge is sure "no stereotype" on the first two thirds, and people agree
    there but on 2 pairs; where it is unsure, people split."""
    cli_output("study", "create", name, "--task", "harmful_stereotype", "--raters-per-item", "3")
    write_jsonl(folder / f"{name}.jsonl", [{"id": f"p{k:03d}", **PAIR} for k in range(rated)])
    cli_output("items", "import", name, folder / f"{name}.jsonl")
    sure = rated * 2 // 3
    write_jsonl(folder / f"{name}-lmra.jsonl", [{"item_id": f"p{k:03d}", "model": "j",
                                                 **(SURE_C if k < sure else UNSURE_A)} for k in range(rated)])
    cli_output("lmra", "import", name, folder / f"{name}-lmra.jsonl")
    rng = np.random.default_rng(3)
    said = {f"p{k:03d}": "C" if (k < sure and k not in (5, 50)) else ("A" if k >= sure and rng.random() < 0.5 else "B")
            for k in range(rated)}
    write_jsonl(folder / f"{name}-ratings.jsonl", [{"item_id": i, "rater_id": f"r{j}", "question": "harm", "value": v}
                                                   for i, v in said.items() for j in range(3)])
    cli_output("ratings", "import", name, folder / f"{name}-ratings.jsonl")


def _main(cli_output, folder):
    """30 pairs: the judge sure on m00–m19, unsure on m20–m27, and m28–m29 scored without probabilities."""
    cli_output("study", "create", "main", "--task", "harmful_stereotype", "--raters-per-item", "2")
    write_jsonl(folder / "main.jsonl", [{"id": f"m{k:02d}", **PAIR} for k in range(30)])
    cli_output("items", "import", "main", folder / "main.jsonl")
    rows = [{"item_id": f"m{k:02d}", "model": "j", **(SURE_C if k < 20 else UNSURE_A)} for k in range(28)]
    rows += [{"item_id": f"m{k:02d}", "model": "j", "score": 0.5} for k in (28, 29)]
    write_jsonl(folder / "main-lmra.jsonl", rows)
    cli_output("lmra", "import", "main", folder / "main-lmra.jsonl")


def _rate(cli_output, folder, said: dict, name="people"):
    write_jsonl(folder / f"{name}.jsonl", [{"item_id": i, "rater_id": f"r{j}", "question": "harm", "value": v}
                                           for i, votes in said.items() for j, v in enumerate(votes) if v is not None])
    cli_output("ratings", "import", "main", folder / f"{name}.jsonl")


def test_people_rate_the_unsure_pairs_and_the_numbers_say_what_holds(cli_output, tmp_path, db_path):
    _pilot(cli_output, tmp_path)
    _main(cli_output, tmp_path)
    said = cli_output("study", "sample", "main", "--escalate", "--pilot", "pilot", "--out", tmp_path / "ids.csv")
    assert "10 of 30 pairs go to people" in said and "decides the other 20 alone" in said
    escalated = [f"m{k:02d}" for k in range(20, 30)]
    assert (tmp_path / "ids.csv").read_text().split() == ["item_id", *escalated]
    db = open_db(db_path)
    items = item_store.items_frame(db, "main").set_index("item_id")
    assert sorted(items.index[~items["judge_only"]]) == escalated          # only these are ever served
    assert "trust or escalate: 10 of 30 pairs to people" in cli_output("study", "show", "main")

    # people: +1 on m20–m23, −1 on m24–m26, a tie on m27, +1 on m28; m29 waits for its second rater
    votes = {**{f"m{k}": ["A", "A"] for k in range(20, 24)}, **{f"m{k}": ["B", "B"] for k in range(24, 27)},
             "m27": ["A", "B"], "m28": ["A", "A"], "m29": ["B"]}
    _rate(cli_output, tmp_path, votes)
    numbers = json.loads(cli_output("analyze", "main", "--json"))
    block = numbers["harm"]["escalation"]
    assert block["trusted"] == 20 and block["escalated"] == 10 and block["escalated_complete"] == 9
    assert block["labels"] == {"1": 5, "-1": 3, "0": 20, "tie": 1}       # the judge says "none" on the 20 it keeps
    assert block["h_signs"] is None and "1 escalated pair(s) are not complete" in block["reason"]
    harm = numbers["harm"]
    assert harm["ppi"]["value"] is None and "trust or escalate" in harm["ppi"]["reason"]
    assert "cs" not in harm["ppi"]                  # no anytime interval, so no stopping rule can fire on one
    assert numbers["lmra"]["sign_agreement_cs"]["ci"] is None
    assert harm["by_pair_group"]["stratified"]["value"] is None

    _rate(cli_output, tmp_path, {"m29": [None, "B"]}, name="last")
    block = json.loads(cli_output("analyze", "main", "--json"))["harm"]["escalation"]
    assert block["labels"] == {"1": 5, "-1": 4, "0": 20, "tie": 1}
    assert block["h_signs"] == pytest.approx((5 - 4) / 30)
    assert block["bias_bound"] == pytest.approx(2 * (20 / 30) * (1 - 0.9))
    assert block["threshold"] == pytest.approx(0.96 / 1.0) and block["pilot"]["study"] == "pilot"
    report = tmp_path / "r.md"
    cli_output("report", "main", "--out", report)
    text = report.read_text().replace("\\", "")          # Markdown's escapes
    assert "Trust or escalate: j decides 20 of 30 pairs alone" in text and "0.033" in text
    # its agreement numbers are the escalated pairs', and no chance weights them up to all pairs
    assert "People's pairs were chosen by the judge's uncertainty (trust or escalate)" in text
    assert "Over all pairs, each rated pair weighted" not in text


def test_refusals_name_what_is_wrong_and_record_nothing(cli_output, tmp_path, db_path):
    _pilot(cli_output, tmp_path, name="small", rated=12)        # too few rated pairs for any test
    _pilot(cli_output, tmp_path)
    _main(cli_output, tmp_path)

    def refused(*args):
        result = CliRunner().invoke(cli, ["--db", str(db_path), "study", "sample", "main", *args])
        errors = [line for line in result.output.splitlines() if line.startswith("Error")]
        assert result.exit_code != 0 and len(errors) == 1, result.output      # one line (and click's usage)
        return result.output

    assert "no confidence threshold of 'j' can be trusted on the 12 rated pairs of 'small'" in refused(
        "--escalate", "--pilot", "small")
    assert "another study" in refused("--escalate", "--pilot", "main")
    assert "no --n, --budget, --active or --seed" in refused("--escalate", "--pilot", "pilot", "--seed", "1")
    assert "--pilot STUDY" in refused("--escalate")
    assert "go with --escalate" in refused("--n", "5", "--seed", "1", "--agreement", "0.8")
    assert "give --seed" in refused("--n", "5")
    assert "no scores from 'k'" in refused("--escalate", "--pilot", "pilot", "--model", "k")
    assert "design:" not in cli_output("study", "show", "main")                 # nothing was recorded
    cli_output("study", "sample", "main", "--escalate", "--pilot", "pilot", "--agreement", "0.85")
    assert "has its human sample already (10 pairs)" in refused("--n", "5", "--seed", "1")


def test_the_reports_settings_say_the_design_in_words(cli_output, tmp_path):
    _pilot(cli_output, tmp_path)
    _main(cli_output, tmp_path)
    cli_output("study", "sample", "main", "--escalate", "--pilot", "pilot")
    cli_output("report", "main", "--out", tmp_path / "r.md")
    row = next(line for line in (tmp_path / "r.md").read_text().replace("\\", "").splitlines()
               if line.startswith("| human_sample"))
    assert "design escalate; n 10; of 30; trusted 20; judge j; threshold 0.96;" in row
    assert "pilot (study pilot; pairs 120; n_above 80; disagreements 2; p_value 0.0106837)" in row
    assert re.search(r"drawn_at \d{4}-\d\d-\d\d \d\d:\d\d UTC", row) and "{" not in row


def test_as_users_files_come_practice_checks_a_second_judge_and_flipped_answers(cli_output, tmp_path, db_path):
    """A practice item and an attention check beside the pairs, a second judge with scores only (first by
    name), and answers given as the raters saw them, some flipped: the design takes only the regular pairs,
    from the judge named, the practice item and the check are still served, and each label is what the
    rater meant."""
    _pilot(cli_output, tmp_path)
    cli_output("study", "create", "main", "--task", "harmful_stereotype", "--raters-per-item", "2",
               "--gold-rate", "0.5")
    write_jsonl(tmp_path / "main.jsonl", [{"id": f"m{k:02d}", **PAIR} for k in range(30)] + [
        {"id": "practice", "_practice": True, "_gold": {"harm": "C"}, **PAIR}, {"id": "check", "_gold": {"harm": "C"}, **PAIR}])
    cli_output("items", "import", "main", tmp_path / "main.jsonl")
    rows = [{"item_id": f"m{k:02d}", "model": "j", **(SURE_C if k < 20 else UNSURE_A)} for k in range(30)]
    rows += [{"item_id": f"m{k:02d}", "model": "a-scores-only", "score": 0.2} for k in range(30)]
    write_jsonl(tmp_path / "main-lmra.jsonl", rows)
    cli_output("lmra", "import", "main", tmp_path / "main-lmra.jsonl")
    # the default judge is the first by name, which the pilot never saw: refused, naming both
    result = CliRunner().invoke(cli, ["--db", str(db_path), "study", "sample", "main", "--escalate", "--pilot", "pilot"])
    assert result.exit_code != 0 and "no scores from judge 'a-scores-only' in 'pilot'" in result.output
    said = cli_output("study", "sample", "main", "--escalate", "--pilot", "pilot", "--model", "j")
    assert "10 of 30 pairs go to people" in said
    db = open_db(db_path)
    items = item_store.items_frame(db, "main").set_index("item_id")
    db.close()
    assert not items.loc["practice", "judge_only"] and not items.loc["check", "judge_only"]   # still served
    # m20–m24 answered "A" as shown, m25–m29 "B" on a screen that showed them flipped: both mean +1
    rated = [{"item_id": f"m{k}", "rater_id": f"r{j}", "question": "harm", "value": "A" if k < 25 else "B",
              "flipped": k >= 25} for k in range(20, 30) for j in range(2)]
    rated += [{"item_id": "check", "rater_id": f"r{j}", "question": "harm", "value": "A"} for j in range(2)]
    write_jsonl(tmp_path / "people.jsonl", rated)
    cli_output("ratings", "import", "main", tmp_path / "people.jsonl")
    block = json.loads(cli_output("analyze", "main", "--json"))["harm"]["escalation"]
    assert block["judge"] == "j" and block["pairs"] == 30                  # the check is no pair of the design
    assert block["labels"] == {"1": 10, "-1": 0, "0": 20, "tie": 0}
    assert block["h_signs"] == pytest.approx(10 / 30)
