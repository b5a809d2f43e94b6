"""`fairval judge trust`: the judge's answers and confidences from its stored probabilities (App. H's
combination), the people's majority, the threshold and the share of all pairs above it, against a count
written out here."""
import json

import numpy as np
from click.testing import CliRunner

from fairval.analysis.trust import trust_threshold
from fairval.annotate.cli.main import cli
from tests.conftest import write_jsonl

PAIR = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
SURE_C = {"p_a": 0.02, "p_b": 0.02, "p_c": 0.96, "q_a": 0.02, "q_b": 0.02, "q_c": 0.96}
UNSURE_A = {"p_a": 0.5, "p_b": 0.2, "p_c": 0.3, "q_a": 0.2, "q_b": 0.5, "q_c": 0.3}      # swapped: B means A


def test_the_confident_pairs_are_left_to_the_judge(cli_output, tmp_path):
    cli_output("study", "create", "p", "--task", "harmful_stereotype", "--raters-per-item", "3")
    n = 120
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": f"p{k:03d}", **PAIR} for k in range(n + 40)])
    cli_output("items", "import", "p", tmp_path / "pairs.jsonl")
    # the judge is sure "no stereotype" on the first 80 and unsure "A" on the rest; 40 pairs only it judged
    judge = {f"p{k:03d}": SURE_C if k < 80 or k >= n else UNSURE_A for k in range(n + 40)}
    write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": i, "model": "j", **v} for i, v in judge.items()])
    cli_output("lmra", "import", "p", tmp_path / "lmra.jsonl")
    rng = np.random.default_rng(3)
    people = {}
    for k in range(n):
        # people say C where the judge is sure (but for 2 pairs), and split where it is unsure
        majority = "C" if (k < 80 and k not in (5, 50)) else ("A" if k >= 80 and rng.random() < 0.5 else "B")
        people[f"p{k:03d}"] = majority
    write_jsonl(tmp_path / "ratings.jsonl", [{"item_id": i, "rater_id": f"r{j}", "question": "harm", "value": v}
                                             for i, v in people.items() for j in range(3)])
    cli_output("ratings", "import", "p", tmp_path / "ratings.jsonl")
    found = json.loads(cli_output("judge", "trust", "p", "--json"))
    # independently: the judge's answer is C (confidence 0.96/0.98 normalised) on the sure pairs, A elsewhere
    sure = 0.96 / (0.02 + 0.02 + 0.96)
    unsure_r = np.array([min(0.5, 0.5), min(0.2, 0.2), min(0.3, 0.3)])
    unsure = unsure_r.max() / unsure_r.sum()
    confidence = np.array([sure if k < 80 else unsure for k in range(n)])
    agrees = np.array([people[f"p{k:03d}"] == ("C" if k < 80 else "A") for k in range(n)])
    want = trust_threshold(confidence, agrees, agreement=0.9, risk=0.05)
    assert found["threshold"] == want.threshold == sure and found["n_above"] == 80
    assert found["disagreements"] == 2 and found["pairs_to_judge_alone"] == 80 + 40
    assert found["share_to_judge_alone"] == (80 + 40) / (n + 40)
    said = cli_output("judge", "trust", "p")
    assert "may decide 120 of 160 judged pairs (75%) alone" in said


def test_scores_without_probabilities_are_refused_in_one_line(cli_output, tmp_path, db_path):
    cli_output("study", "create", "p", "--task", "harmful_stereotype")
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": "a", **PAIR}])
    cli_output("items", "import", "p", tmp_path / "pairs.jsonl")
    write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": "a", "model": "j", "score": 0.5}])
    cli_output("lmra", "import", "p", tmp_path / "lmra.jsonl")
    result = CliRunner().invoke(cli, ["--db", str(db_path), "judge", "trust", "p"])
    assert result.exit_code == 1 and "no answer probabilities" in result.output
