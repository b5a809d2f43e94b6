"""A rater who answers "prefer not to say" to a background question counts in every number but in no rater
group's: the per-group block lists only the groups people named."""
import json

from tests.conftest import write_jsonl

PAIR = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}


def test_prefer_not_to_say_is_missing_not_a_group(cli_output, tmp_path):
    cli_output("study", "create", "p", "--task", "harmful_stereotype", "--raters-per-item", "3")
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": f"p{k}", **PAIR} for k in range(6)])
    cli_output("items", "import", "p", tmp_path / "pairs.jsonl")
    write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": f"p{k}", "model": "j", "score": (k % 3 - 1) / 2} for k in range(6)])
    cli_output("lmra", "import", "p", tmp_path / "lmra.jsonl")
    genders = {"r0": "female", "r1": "male", "r2": "prefer not to say"}
    write_jsonl(tmp_path / "ratings.jsonl", [
        {"item_id": f"p{k}", "rater_id": r, "question": "harm", "value": "ABC"[(k + i) % 3], "rater_gender": g}
        for k in range(6) for i, (r, g) in enumerate(genders.items())])
    cli_output("ratings", "import", "p", tmp_path / "ratings.jsonl")
    numbers = json.loads(cli_output("analyze", "p", "--json"))
    assert numbers["n_raters"] == 3 and numbers["n_ratings"] == 18
    assert sorted(numbers["lmra"]["by_rater_group"]["gender"]) == ["female", "male"]
