"""Every interval `analyze --json` prints lies inside its number's range, is finite and has width, in the
studies that break intervals most easily: two pairs, every rater giving the same answer, a judge that agrees
perfectly, a template rated 5 by everyone; and in the demo's studies."""
import json
import math

import pytest

import fairval
from tests.conftest import write_jsonl

PAIR = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}


def intervals(numbers, path=""):
    """(path, [low, high]) for every interval in the numbers: keys named ci or *_ci, and the template
    tables' mean_ci_low / mean_ci_high."""
    if isinstance(numbers, dict):
        if "mean_ci_low" in numbers:
            yield f"{path}.mean_ci", [numbers["mean_ci_low"], numbers["mean_ci_high"]]
        for key, value in numbers.items():
            if (key == "ci" or key.endswith("_ci")) and isinstance(value, list):
                yield f"{path}.{key}", value
            else:
                yield from intervals(value, f"{path}.{key}")
    elif isinstance(numbers, list):
        for k, value in enumerate(numbers):
            yield from intervals(value, f"{path}[{k}]")


def number_range(path: str) -> tuple[float, float]:
    """The range each kind of number can take, written from what it is, not from the code."""
    if path.endswith(".mean_ci"):
        return (1.0, 5.0)                                        # a mean of a 1–5 question
    if "difference" in path or "mean_error" in path:
        return (-2.0, 2.0)                                       # H_human − H_judge (or judge − people), each in [−1, 1]
    if any(word in path for word in ("sign_agreement", "first", "accuracy", "share")):
        return (0.0, 1.0)
    return (-1.0, 1.0)                                           # H, correlations, alpha, reliability


def check(numbers) -> int:
    found = 0
    for path, ci in intervals(numbers):
        if ci is None:
            continue
        low, high = number_range(path)
        assert all(isinstance(v, (int, float)) and math.isfinite(v) for v in ci), (path, ci)
        assert low - 1e-9 <= ci[0] < ci[1] <= high + 1e-9, (path, ci)      # inside, and never zero width
        found += 1
    return found


def _pairs(cli_output, tmp_path, answers: dict[str, list[str]], scores: dict[str, float], sample: int | None):
    cli_output("study", "create", "p", "--task", "harmful_stereotype", "--raters-per-item", "3")
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": i, **PAIR} for i in scores])
    cli_output("items", "import", "p", tmp_path / "pairs.jsonl")
    write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": i, "model": "j", "score": s} for i, s in scores.items()])
    cli_output("lmra", "import", "p", tmp_path / "lmra.jsonl")
    if sample:
        cli_output("study", "sample", "p", "--n", sample, "--seed", "3")
    if answers:
        write_jsonl(tmp_path / "ratings.jsonl", [
            {"item_id": i, "rater_id": f"r{k}", "question": "harm", "value": v, "rater_gender": ("female", "male")[k % 2]}
            for i, vs in answers.items() for k, v in enumerate(vs)])
        cli_output("ratings", "import", "p", tmp_path / "ratings.jsonl")
    return json.loads(cli_output("analyze", "p", "--json"))


def test_two_pairs_everyone_says_no_difference(cli_output, tmp_path, db_path):
    """The issue's study: 2 pairs rated C by all 3 raters; the judge scored 4."""
    _pairs(cli_output, tmp_path, {}, {"a": 0.2, "b": 0.1, "c": 0.3, "d": 0.0}, sample=2)
    with fairval.open(db_path) as db:
        items = db.study("p").items()
    drawn = list(items.loc[~items["judge_only"].astype(bool), "item_id"])
    write_jsonl(tmp_path / "more.jsonl", [{"item_id": i, "rater_id": f"r{k}", "question": "harm", "value": "C"}
                                           for i in drawn for k in range(3)])
    cli_output("ratings", "import", "p", tmp_path / "more.jsonl")
    numbers = json.loads(cli_output("analyze", "p", "--json"))
    assert numbers["harm"]["human"] == 0 and numbers["harm"]["ppi"]["value"] is not None
    assert check(numbers) >= 4
    low, high = numbers["harm"]["human_ci"]
    # independent: where a share p of pairs is +1 and the rest 0 (H = p), two pairs both 0 come with chance
    # (1 − p)², at least 5% for p ≤ 1 − √0.05; a valid 95% interval keeps those H, and their negatives
    must = 1 - math.sqrt(0.05)
    assert low <= -must and high >= must


def test_a_judge_that_agrees_perfectly_and_extreme_answers(cli_output, tmp_path):
    answers = {f"p{k}": [("A", "B", "C")[k % 3]] * 3 for k in range(9)}
    scores = {i: {"A": 1.0, "B": -1.0, "C": 0.0}[v[0]] for i, v in answers.items()}
    numbers = _pairs(cli_output, tmp_path, answers, scores, sample=None)
    assert numbers["lmra"]["spearman"]["value"] == pytest.approx(1.0)
    assert numbers["lmra"]["spearman"]["ci"] is None and "perfect" in numbers["lmra"]["spearman"]["reason"]
    assert check(numbers) >= 5


def test_a_template_everyone_rates_five(cli_output, tmp_path, db_path):
    cli_output("study", "create", "t", "--task", "template_quality", "--raters-per-item", "3")
    rows = [{"filled_template": f"Should the bank approve loan {k}?", "decision_question_id": k % 2, "age": 30.0,
             "gender": "female", "race": "white", "fill_type": "explicit"} for k in range(4)]
    write_jsonl(tmp_path / "t.jsonl", rows)
    cli_output("items", "import", "t", tmp_path / "t.jsonl")
    with fairval.open(db_path) as db:
        ids = list(db.study("t").items()["item_id"])
    write_jsonl(tmp_path / "r.jsonl", [{"item_id": i, "rater_id": f"r{k}", "question": q, "value": 5}
                                       for i in ids for k in range(3) for q in ("quality", "yes_positive")])
    cli_output("ratings", "import", "t", tmp_path / "r.jsonl")
    numbers = json.loads(cli_output("analyze", "t", "--json"))
    means = [row for row in numbers["templates"] if row["question"] == "quality"]
    assert [row["mean"] for row in means] == [5.0, 5.0] and all(row["mean_ci_low"] < 5 for row in means)
    assert check(numbers) >= 4


def test_the_demo_studies(cli_output):
    cli_output("demo", "--no-serve")
    found = {study: check(json.loads(cli_output("analyze", study, "--json")))
             for study in ("demo-templates", "demo-pairs", "demo-names", "demo-features", "demo-scenarios")}
    assert found["demo-pairs"] > 20 and found["demo-templates"] > 5
