"""`fairval export --format hf`: a dataset folder whose files hold every rating and item, with a card
whose YAML names them, the protocol, the numbers and the exclusions."""
import json

import pandas as pd
import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.demo import ensure_demo
from fairval.annotate.results.numbers import study_numbers


def test_the_dataset_folder_holds_the_study_and_its_card(db, db_path, tmp_path):
    ensure_demo(db)
    out = tmp_path / "dataset"
    result = CliRunner().invoke(cli, ["--db", str(db_path), "export", "demo-pairs", "--format", "hf",
                                      "--out", str(out), "--exclude-flagged"])
    assert result.exit_code == 0, result.output
    ratings = pd.read_parquet(out / "data" / "ratings.parquet")
    stored = db.execute("SELECT COUNT(*) FROM ratings WHERE study_id = 'demo-pairs'").fetchone()[0]
    assert len(ratings) == stored and set(ratings["study_id"]) == {"demo-pairs"}
    items = pd.read_parquet(out / "data" / "items.parquet")
    every = db.execute("SELECT COUNT(*) FROM items WHERE study_id = 'demo-pairs'").fetchone()[0]
    assert len(items) == every == 10 and json.loads(items["fields"][0])["group_a"]   # practice and check too
    card = (out / "README.md").read_text()
    front = card.split("---\n")[1]
    assert "data_files: data/ratings.parquet" in front and "config_name: items" in front
    assert "config_name: soft_labels" in front
    soft = pd.read_parquet(out / "data" / "soft_labels.parquet")
    from fairval.annotate.outputs.export import soft_label_table
    pd.testing.assert_frame_equal(soft, soft_label_table(db, "demo-pairs", exclude_flagged=True))
    assert set(soft["rater_group"]) == {"all", "female", "male"}
    numbers = study_numbers(db, "demo-pairs", exclude_flagged=True).to_dict()
    harm = numbers["questions"]["harm"]
    assert f"| harm | {harm['n']} | {harm['alpha']:.3f} |" in card
    assert "## Protocol" in card and "## Exclusions" in card
    assert json.loads((out / "numbers.json").read_text())["n_ratings"] == numbers["n_ratings"]


def test_an_existing_folder_with_files_is_refused(db, db_path, tmp_path):
    ensure_demo(db)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    result = CliRunner().invoke(cli, ["--db", str(db_path), "export", "demo-pairs", "--format", "hf",
                                      "--out", str(tmp_path / "full")])
    assert result.exit_code == 1 and "not an empty folder" in result.output
    assert (tmp_path / "full" / "keep.txt").read_text() == "mine"


def test_datasets_loads_the_folder_when_installed(db, db_path, tmp_path):
    datasets = pytest.importorskip("datasets")        # the Hub's own loader, if this machine has it
    ensure_demo(db)
    CliRunner().invoke(cli, ["--db", str(db_path), "export", "demo-pairs", "--format", "hf", "--out",
                             str(tmp_path / "d")])
    assert datasets.load_dataset(str(tmp_path / "d"), "items")["train"].num_rows == 8
    loaded = datasets.load_dataset(str(tmp_path / "d"))
    assert loaded["train"].num_rows == db.execute("SELECT COUNT(*) FROM ratings WHERE study_id = 'demo-pairs'").fetchone()[0]


def test_the_card_draws_no_image_or_link_it_was_handed(db, db_path, tmp_path):
    """A judge named like a Markdown image, groups and rater ids like links: the card shows them as text."""
    from markdown_it import MarkdownIt

    from fairval.annotate.material.importers import import_items, import_lmra, import_ratings
    from fairval.annotate.material.studies import create_study
    from tests.conftest import write_jsonl

    # country, whose groups are free text (a gender or race group must be an answer raters can give)
    create_study(db, "p", "harmful_stereotype", raters_per_item=2, balance_by="country",
                 balance_groups=["[w](http://127.0.0.1:9/g)", "m"])
    pair = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
    import_items(db, "p", write_jsonl(tmp_path / "i.jsonl", [{"id": f"p{k}", **pair} for k in range(4)]))
    judge = "![x](http://127.0.0.1:9/pixel.png)"
    import_lmra(db, "p", write_jsonl(tmp_path / "l.jsonl", [{"item_id": f"p{k}", "model": judge, "score": k / 4}
                                                             for k in range(4)]))
    import_ratings(db, "p", write_jsonl(tmp_path / "r.jsonl", [
        {"item_id": f"p{k}", "rater_id": f"r{j}", "question": "harm", "value": "ABC"[(k + j) % 3],
         "rater_country": "m"} for k in range(4) for j in range(2)]))
    out = tmp_path / "dataset"
    result = CliRunner().invoke(cli, ["--db", str(db_path), "export", "p", "--format", "hf", "--out", str(out)])
    assert result.exit_code == 0, result.output
    html = MarkdownIt("commonmark").render((out / "README.md").read_text())
    assert "<img" not in html and "<a " not in html and "pixel.png" in html
