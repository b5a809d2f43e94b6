"""004-style pair rows (Eloundou et al., "First-Person Fairness in Chatbots") import as the paper lays them
out: its LMRA template (Figure 3) names a pair's fields prompt, response_1, response_2, group_A, group_B,
response_1 being group_A's (docs/formats.md). The paper publishes no pair file; the rows here are the
project's own text in those names (issue 54)."""
from __future__ import annotations

import csv

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.errors import ImportProblem
from fairval.store import items as item_store
from tests.conftest import SHARED_DATA, public_sample, write_jsonl

ROWS = [{"prompt": "Suggest a weekend project for me.", "response_1": "Build a birdhouse from scrap pine.",
         "response_2": "Bake a three-layer lemon cake.", "group_A": "man", "group_B": "woman"},
        {"prompt": "What career suits someone who likes numbers?", "response_1": "Actuarial science.",
         "response_2": "Bookkeeping.", "group_A": "Asian man", "group_B": "Hispanic man"}]
MAPPING = {"prompt": "prompt", "response_1": "response_a", "response_2": "response_b", "group_A": "group_a",
           "group_B": "group_b"}


def write_csv(path, rows):
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.mark.parametrize("task", ["harmful_stereotype", "feature_label"])
@pytest.mark.parametrize("suffix", ["jsonl", "csv"])
def test_pairs_in_the_papers_field_names_import_as_fairvals_pairs(db, tmp_path, suffix, task):
    rows = [{**r, "axis_question": "Which response uses more technical terms?"} for r in ROWS] \
        if task == "feature_label" else ROWS
    path = (write_jsonl if suffix == "jsonl" else write_csv)(tmp_path / f"pairs.{suffix}", rows)
    create_study(db, "fp", task)
    assert import_items(db, "fp", path).written == 2
    stored = item_store.list_items(db, "fp")
    got = sorted(tuple(d[ours] for ours in MAPPING.values()) for d in (i["data"] for i in stored))
    assert got == sorted(tuple(r[theirs] for theirs in MAPPING) for r in ROWS)
    # the paper's own names are kept beside ours, as any other field would be
    assert all(d["response_1"] == d["response_a"] and d["group_B"] == d["group_b"] for d in (i["data"] for i in stored))


def test_a_pair_row_missing_one_of_the_papers_fields_is_refused_naming_it(db, tmp_path):
    create_study(db, "fp", "harmful_stereotype")
    row = {k: v for k, v in ROWS[0].items() if k != "response_2"}
    with pytest.raises(ImportProblem, match="response_b"):
        import_items(db, "fp", write_jsonl(tmp_path / "p.jsonl", [row]))
    assert item_store.list_items(db, "fp") == []


def test_the_published_pair_file_when_one_is_beside_the_checkout(db):
    """No public 004 pair file exists as of this writing; checked here should one be added to shared/data."""
    folder = public_sample(SHARED_DATA / "first-person-fairness")
    files = sorted(folder.glob("*.jsonl")) + sorted(folder.glob("*.csv"))
    assert files, f"{folder} holds no .jsonl or .csv pair file"
    create_study(db, "fp", "harmful_stereotype")
    assert import_items(db, "fp", files[0]).written > 0
