"""A study's first pairs, as a researcher meets them: with 3 pairs rated by people, `analyze --json`, the
report and the Calibration page give betting intervals for the means of people's scores (humans − LMRA no
longer excludes 0 from 3 pairs that happen to lie below the judge), and PPI's normal interval says what it
is worth; with 30 pairs, neither sentence."""
import json

import pytest

from tests.conftest import write_jsonl
from tests.ui.apptest import page

PAIR = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}


def study(cli_output, tmp_path, rated: int) -> dict:
    cli_output("study", "create", "f", "--task", "harmful_stereotype", "--raters-per-item", "1")
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": f"p{k}", **PAIR} for k in range(40)])
    cli_output("items", "import", "f", tmp_path / "pairs.jsonl")
    # the judge sees a little stereotype everywhere; people saw the reverse on every pair they rated
    write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": f"p{k}", "model": "j", "score": 0.3} for k in range(40)])
    cli_output("lmra", "import", "f", tmp_path / "lmra.jsonl")
    write_jsonl(tmp_path / "ratings.jsonl", [{"item_id": f"p{k}", "rater_id": f"r{k}", "question": "harm",
                                              "value": "B" if k % 3 else "C"} for k in range(rated)])
    cli_output("ratings", "import", "f", tmp_path / "ratings.jsonl")
    return json.loads(cli_output("analyze", "f", "--json"))["harm"]


def test_three_rated_pairs(cli_output, tmp_path, monkeypatch, db_path):
    harm = study(cli_output, tmp_path, 3)
    # the per-pair differences are −0.3, −1.3, −1.3: all below 0, as a bootstrap over them would say
    assert harm["difference"]["value"] == pytest.approx((-0.3 - 1.3 - 1.3) / 3)
    low, high = harm["difference"]["ci"]
    assert low < harm["difference"]["value"] and high > 0 and low >= -2
    assert harm["human_ci"][0] < harm["human"] < harm["human_ci"][1] and harm["human_ci"][1] > 0
    assert "76–94%" in harm["ppi"]["valid"]
    # one group pair: the stratified H is that group's, interval and all, though it reaches −1 and is cut there
    (group,) = harm["by_pair_group"]["groups"].values()
    whole = harm["by_pair_group"]["stratified"]
    assert group["ppi"]["ci"][0] == -1 and whole["ci"] == pytest.approx(group["ppi"]["ci"])
    assert whole["valid"] == group["ppi"]["valid"] == harm["ppi"]["valid"]
    cli_output("report", "f", "--out", tmp_path / "r.md")
    report = (tmp_path / "r.md").read_text().replace("\\", "")          # Markdown's escapes off
    assert "With 3 rated pairs (fewer than 30), the intervals of means" in report
    assert "Its interval is approximate (a normal interval)" in report
    assert "approximate: fewer than 30 rated pairs" in report                  # the group pair's row
    monkeypatch.setenv("FAIRVAL_RESEARCHER_PASSWORD", "s3cret")
    at = page("2_Calibration.py")
    at.text_input[0].input("s3cret")
    at.button[0].click().run()
    captions = " ".join(c.value for c in at.caption)
    assert "betting intervals, valid at every n" in captions and "Its interval is approximate" in captions


def test_thirty_rated_pairs_say_neither(cli_output, tmp_path):
    harm = study(cli_output, tmp_path, 30)
    assert "valid" not in harm["ppi"]
    cli_output("report", "f", "--out", tmp_path / "r.md")
    report = (tmp_path / "r.md").read_text().replace("\\", "")
    assert "fewer than 30" not in report and "Its interval is approximate" not in report
