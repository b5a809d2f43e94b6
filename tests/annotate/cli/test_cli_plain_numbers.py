"""What a new user reads from the command line without --json (the new-user walk of issue 53's QA): a pair
study's plain `analyze` gives H, the number the study is for; an import of one row says "1 item"; a name
study without ratings says so instead of an empty accuracy line."""
import json
import re

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from tests.conftest import write_jsonl

# the project's own pairs in the paper's (004-style) layout: response_1 is group_A's
PAIRS = [{"id": f"p{i}", "prompt": f"Suggest a hobby for me ({i}).", "response_1": f"Woodwork, take {i}.",
          "response_2": f"Knitting, take {i}.", "group_A": "man", "group_B": "woman"} for i in range(3)]
# answers as seen, never flipped: A is the stereotype in the true direction (+1), B the reverse (-1), C none (0)
ANSWERS = {"p0": ["A", "A", "C"], "p1": ["B", "C", "C"], "p2": ["A", "B", "A"]}
SCORE = {"A": 1, "B": -1, "C": 0}
JUDGE = {"p0": 0.6, "p1": -0.2, "p2": 0.1}


def test_a_pair_studys_plain_analyze_says_h_for_people_and_the_judge(cli_output, tmp_path):
    cli_output("study", "create", "pairs", "--task", "harmful_stereotype", "--raters-per-item", "3")
    cli_output("items", "import", "pairs", write_jsonl(tmp_path / "pairs.jsonl", PAIRS))
    cli_output("ratings", "import", "pairs", write_jsonl(tmp_path / "ratings.jsonl", [
        {"item_id": item, "rater_id": f"r{k}", "question": "harm", "value": v, "flipped": 0}
        for item, values in ANSWERS.items() for k, v in enumerate(values)]))
    cli_output("lmra", "import", "pairs", write_jsonl(tmp_path / "judge.jsonl", [
        {"item_id": item, "model": "j", "score": s} for item, s in JUDGE.items()]))
    said = cli_output("analyze", "pairs", "--bootstrap", "200")
    # H, computed here: each pair's mean score, then their mean; the judge's: its scores' mean
    human = sum(sum(SCORE[v] for v in vs) / len(vs) for vs in ANSWERS.values()) / len(ANSWERS)
    judge = sum(JUDGE.values()) / len(JUDGE)
    line = re.search(r"Harmful-stereotype rate H: humans (\S+) \[(\S+), (\S+)\] over 3 pairs; "
                     r"LMRA (\S+) \[(\S+), (\S+)\] over 3 pairs", said)
    assert line, said
    h, h_low, h_high, j, j_low, j_high = (float(x.rstrip(",")) for x in line.groups())
    assert h == pytest.approx(human, abs=5e-4) and j == pytest.approx(judge, abs=5e-4)
    assert -1 <= h_low < h < h_high <= 1 and -1 <= j_low < j < j_high <= 1      # in range, never zero-width
    numbers = json.loads(cli_output("analyze", "pairs", "--json", "--bootstrap", "200"))["harm"]
    assert (h_low, h_high) == pytest.approx(numbers["human_ci"][:2], abs=5e-4)   # the interval --json gives


def test_an_import_of_one_row_says_one_item_rating_and_score(cli_output, tmp_path):
    cli_output("study", "create", "pairs", "--task", "harmful_stereotype")
    said = cli_output("items", "import", "pairs", write_jsonl(tmp_path / "one.jsonl", PAIRS[:1]))
    assert "imported 1 item into 'pairs'" in said
    said = cli_output("ratings", "import", "pairs", write_jsonl(tmp_path / "r.jsonl", [
        {"item_id": "p0", "rater_id": "r0", "question": "harm", "value": "A"}]))
    assert "imported 1 rating into 'pairs'" in said
    said = cli_output("lmra", "import", "pairs", write_jsonl(tmp_path / "j.jsonl", [
        {"item_id": "p0", "model": "j", "score": 0.5}]))
    assert "imported 1 LMRA score into 'pairs'" in said
    said = cli_output("items", "import", "pairs", write_jsonl(tmp_path / "two.jsonl", PAIRS[1:]))
    assert "imported 2 items into 'pairs'" in said


def test_a_name_study_without_ratings_says_so_on_its_accuracy_lines(cli_output, tmp_path):
    cli_output("study", "create", "names", "--task", "name_perception")
    cli_output("items", "import", "names", write_jsonl(tmp_path / "names.jsonl", [
        {"name": "Ada Quill", "name_group": "white_women"}, {"name": "Kofi Mensah", "name_group": "black_men"}]))
    said = cli_output("analyze", "names")
    accuracy = [line for line in said.splitlines() if "accuracy:" in line]
    assert [line.split(":")[0].strip() for line in accuracy] == ["race accuracy", "gender accuracy"]
    assert all(line.endswith("– (no ratings)") for line in accuracy), said


def test_a_paper_layout_row_without_a_field_is_named_as_the_file_writes_it(db_path, tmp_path):
    runner = CliRunner()
    create = ["--db", str(db_path), "study", "create", "pairs", "--task", "harmful_stereotype"]
    assert runner.invoke(cli, create).exit_code == 0
    short = {k: v for k, v in PAIRS[1].items() if k != "response_2"}
    paper = write_jsonl(tmp_path / "paper.jsonl", [PAIRS[0], short])
    said = runner.invoke(cli, ["--db", str(db_path), "items", "import", "pairs", str(paper)])
    assert said.exit_code == 1
    assert said.output.strip() == ("Error: paper.jsonl, line 2, field 'response_2': is required but missing or "
                                   "empty (fairval's 'response_b')")
    own = write_jsonl(tmp_path / "own.jsonl", [{"prompt": "p", "response_a": "a", "group_a": "man",
                                                "group_b": "woman"}])
    said = runner.invoke(cli, ["--db", str(db_path), "items", "import", "pairs", str(own)])
    assert said.output.strip() == "Error: own.jsonl, line 1, field 'response_b': is required but missing or empty"
    shown = runner.invoke(cli, ["--db", str(db_path), "study", "show", "pairs"]).output
    assert "items complete 0 / 0" in shown                          # all or nothing: no row was written


def test_compare_says_what_its_columns_are():
    said = CliRunner().invoke(cli, ["compare", "--help"]).output
    words = " ".join(said.split())                                  # click wraps the help
    assert "a (sign agreement) [CI]" in words and "ω (the alternative annotator test's winning rate)" in words
