"""`fairval lmra run --swap-groups` (issue 53): the judge asked again with the two groups' labels exchanged,
through the real openai client against the fake OpenAI server on 127.0.0.1, judge only (no people); its
verdict either follows the responses (the combined score changes sign) or the labels (it keeps its letter).

Two judges written here read the prompt as a model would: the one that follows the responses believes
TRUE-A-… is the response stereotypically given to a woman and answers by who the prompt names first; the
one that follows the labels answers A whenever Response 1 is TRUE-A-…, whoever is named.
"""
import json
import re

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import lmra as lmra_store
from tests.conftest import write_jsonl
from tests.fake_openai import FakeOpenAI, completion

PAIRS = [f"p{i}" for i in range(6)]


def reader(follows_labels: bool):
    def script(request, number):
        text = request["messages"][0]["content"]
        first_named = re.search(r'stereotypic "([^"-]+)-([^"]+)" differences', text).group(1)
        item = re.search(r"User: prompt (p\d+);", text).group(1)
        response_1_is_a = text.index(f"TRUE-A-{item}") < text.index(f"TRUE-B-{item}")
        # the label follower: A whenever Response 1 is TRUE-A; the other: A when Response 1 to the first-named
        # group is the stereotype (TRUE-A to a woman)
        says_a = response_1_is_a if follows_labels else response_1_is_a == (first_named == "woman")
        top = {"A": 0.8, "B": 0.15, "C": 0.05} if says_a else {"A": 0.15, "B": 0.8, "C": 0.05}
        return 200, completion(max(top, key=top.get), top), {}
    return script


@pytest.fixture
def pairs(db_path, tmp_path):
    from fairval.store import open_db
    db = open_db(db_path)
    create_study(db, "fp", "harmful_stereotype")
    import_items(db, "fp", write_jsonl(tmp_path / "pairs.jsonl", [
        {"id": i, "prompt": f"prompt {i}", "response_a": f"TRUE-A-{i}", "response_b": f"TRUE-B-{i}",
         "group_a": "woman", "group_b": "man"} for i in PAIRS]))
    return db


def run(db_path, base_url, *extra):
    result = CliRunner().invoke(cli, ["--db", str(db_path), "lmra", "run", "fp", "--model", "judge", "--base-url",
                                      base_url, "--yes", *extra])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("follows_labels", [True, False], ids=["follows the labels", "follows the responses"])
def test_swap_groups_reports_whether_the_verdict_follows_the_labels(db_path, pairs, follows_labels):
    server = FakeOpenAI(reader(follows_labels))
    try:
        run(db_path, server.base_url)
        asked = len(server.requests)
        out = run(db_path, server.base_url, "--swap-groups")
        swapped_prompts = [r["messages"][0]["content"] for r in server.requests[asked:]]
        again = run(db_path, server.base_url, "--swap-groups")          # a resume pays nothing twice
    finally:
        server.close()
    assert asked == 12 and len(swapped_prompts) == 12 and len(server.requests) == 24
    assert all('"man-woman"' in p for p in swapped_prompts)                      # the labels exchanged
    assert all('"woman-man"' in r["messages"][0]["content"] for r in server.requests[:asked])
    share = "1.00" if follows_labels else "0.00"
    assert f"verdict followed the labels (kept its letter) on {6 if follows_labels else 0} of 6 pairs ({share}" in out
    assert "of 6 pairs" in again

    # the swapped run is no judge of the study's numbers, but its audit is in analyze --json
    assert set(lmra_store.scores_frame(pairs, "fp")["model"]) == {"judge"}
    numbers = json.loads(CliRunner().invoke(cli, ["--db", str(db_path), "analyze", "fp", "--json"]).output)
    assert numbers["lmra"]["model"] == "judge" and numbers["lmra"]["by_model"] is None
    swap = numbers["lmra"]["by_pair_group"]["label_swap"]
    assert swap["n"] == 6 and swap["follows_labels"] == (1.0 if follows_labels else 0.0)
    assert swap["follows_responses"] == (0.0 if follows_labels else 1.0)
    assert numbers["lmra"]["by_pair_group"]["groups"]["woman vs man"]["label_swap"]["n"] == 6


def test_swap_groups_before_the_judge_ran_says_what_to_do(db_path, pairs):
    server = FakeOpenAI(reader(False))
    try:
        out = run(db_path, server.base_url, "--swap-groups")
    finally:
        server.close()
    assert "nothing to compare yet" in out and "without --swap-groups" in out
