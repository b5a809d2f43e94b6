"""Trust or escalate's guarantee counts the pilot's rated pairs as a uniform random sample of its pairs: a
pilot drawn by `--active` (where the judge was least sure) does not give it, and `judge trust` says so in
one line while `study sample --escalate` refuses it; the escalated study's number is the labels' sign
balance, named as such, not H."""
import csv

import numpy as np
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from tests.conftest import write_jsonl

PAIR = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
SURE_C = {"p_a": 0.02, "p_b": 0.02, "p_c": 0.96, "q_a": 0.02, "q_b": 0.02, "q_c": 0.96}
UNSURE_A = {"p_a": 0.5, "p_b": 0.2, "p_c": 0.3, "q_a": 0.2, "q_b": 0.5, "q_c": 0.3}


def _active_pilot(cli_output, folder, pairs=160):
    cli_output("study", "create", "pilot", "--task", "harmful_stereotype", "--raters-per-item", "3")
    write_jsonl(folder / "pilot.jsonl", [{"id": f"p{k:03d}", **PAIR} for k in range(pairs)])
    cli_output("items", "import", "pilot", folder / "pilot.jsonl")
    write_jsonl(folder / "pilot-lmra.jsonl", [{"item_id": f"p{k:03d}", "model": "j", **(SURE_C if k % 3 else UNSURE_A)}
                                              for k in range(pairs)])
    cli_output("lmra", "import", "pilot", folder / "pilot-lmra.jsonl")
    cli_output("study", "sample", "pilot", "--active", "--budget", "90", "--seed", "4", "--out", folder / "kept.csv")
    with open(folder / "kept.csv", newline="", encoding="utf-8") as f:
        kept = [row[next(iter(row))] for row in csv.DictReader(f)]
    said = {i: "C" if int(i[1:]) % 3 else ("A" if np.random.default_rng(int(i[1:])).random() < 0.5 else "B")
            for i in kept}
    write_jsonl(folder / "pilot-ratings.jsonl", [{"item_id": i, "rater_id": f"r{j}", "question": "harm", "value": v}
                                                 for i, v in said.items() for j in range(3)])
    cli_output("ratings", "import", "pilot", folder / "pilot-ratings.jsonl")
    return kept


def test_judge_trust_says_an_active_pilot_does_not_give_the_guarantee(cli_output, tmp_path):
    _active_pilot(cli_output, tmp_path)
    said = cli_output("judge", "trust", "pilot")
    first = said.splitlines()[0]
    assert first.startswith("Not guaranteed for 'pilot':") and "where the judge was least sure" in first
    assert "not uniformly at random" in first


def test_escalate_refuses_an_active_pilot_in_one_line_recording_nothing(cli_output, tmp_path, db_path):
    _active_pilot(cli_output, tmp_path)
    cli_output("study", "create", "main", "--task", "harmful_stereotype")
    write_jsonl(tmp_path / "main.jsonl", [{"id": f"m{k:03d}", **PAIR} for k in range(60)])
    cli_output("items", "import", "main", tmp_path / "main.jsonl")
    write_jsonl(tmp_path / "main-lmra.jsonl", [{"item_id": f"m{k:03d}", "model": "j", **(SURE_C if k % 2 else UNSURE_A)}
                                               for k in range(60)])
    cli_output("lmra", "import", "main", tmp_path / "main-lmra.jsonl")
    result = CliRunner().invoke(cli, ["--db", str(db_path), "study", "sample", "main", "--escalate", "--pilot", "pilot"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "pilot 'pilot' cannot set the threshold" in lines[0] and "--active" in lines[0]
    shown = cli_output("study", "show", "main", "--json")
    assert '"human_sample": null' in shown or '"human_sample": {}' in shown


def test_the_escalated_number_is_named_the_labels_sign_balance_not_h():
    from fairval.annotate.outputs.judge_table import escalation_sentence
    from fairval.annotate.results.blocks import Escalation
    labels = {"1": 7, "-1": 3, "0": 10, "tie": 0}
    block = {"guarantee": "g", "labels": labels, "sign_balance": (7 - 3) / 20, "h_signs": (7 - 3) / 20,
             "bias_bound": 0.01}
    text = escalation_sentence(Escalation.from_dict(block), "H")
    assert "Sign balance of the labels (the share of +1 minus the share of −1; not H" in text
    assert "H from the labels" not in text and "0.2" in text
