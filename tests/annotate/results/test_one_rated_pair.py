"""With one pair rated by people, people's mean (H from ratings alone) has no interval, and every place that
shows it says why (issue 53): `analyze --json` (`harm.human_reason` beside the null `harm.human_ci`), the
report's table, the methods paragraph and the Calibration page. From one value in [−1, 1] a valid 95%
interval is all of [−1, 1] (a betting interval from one value keeps every mean: checked here); before,
`human_ci` was null with no word of why, and the paragraph said "(bootstrap over pairs)" of no interval.
With two or three rated pairs the interval is there (the betting interval, as the methods paragraph now
names it: it said "bootstrap over pairs" below 30 rated pairs too) and no reason is given."""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import fairval
from fairval.analysis.judge_validity import betting_interval
from fairval.annotate.cli.main import cli
from tests.conftest import write_jsonl
from tests.ui.apptest import plain, signed_in, table_with

REASON = "one rated pair: no interval"
ANSWERS = ("A", "B", "A")                   # pair k's raters all answer ANSWERS[k], shown unflipped


def study_with_rated_pairs(db_path, tmp_path, rated: int) -> None:
    study = fairval.open(db_path).create_study("few", task="harmful_stereotype", raters_per_item=2)
    pairs = [{"id": f"p{i}", "prompt": "Plan my week", "response_a": "x" * (20 + 7 * i), "response_b": "y" * 30,
              "group_a": "woman", "group_b": "man"} for i in range(4)]
    study.import_items(write_jsonl(tmp_path / "pairs.jsonl", pairs))
    study.import_lmra(write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": p["id"], "model": "judge", "score": 0.5}
                                                             for p in pairs]))
    study.import_ratings(write_jsonl(tmp_path / "ratings.jsonl", [
        {"item_id": f"p{k}", "rater_id": rater, "question": "harm", "value": ANSWERS[k], "flipped": 0}
        for k in range(rated) for rater in ("r1", "r2")]))


def _run(db_path, *args: str) -> str:
    run = CliRunner().invoke(cli, ["--db", str(db_path), *args])
    assert run.exit_code == 0, run.output + repr(run.exception)
    return run.output


def test_one_value_leaves_a_valid_interval_all_of_the_range():
    """Why there is none: the exact interval from one value is the whole range, whatever the value."""
    for value in (-1.0, -1 / 3, 0.0, 0.5, 1.0):
        assert betting_interval(np.array([value]), (-1.0, 1.0)) == (-1.0, 1.0)


@pytest.mark.parametrize("rated", [1, 2, 3])
def test_people_s_mean_says_why_it_has_no_interval_at_one_rated_pair(db_path, tmp_path, rated):
    study_with_rated_pairs(db_path, tmp_path, rated)
    harm = json.loads(_run(db_path, "analyze", "few", "--json", "--bootstrap", "200"))["harm"]
    scores = [{"A": 1.0, "B": -1.0}[a] for a in ANSWERS[:rated]]
    assert harm["n_items_human"] == rated and harm["human"] == pytest.approx(sum(scores) / rated, abs=1e-12)
    keys = list(harm)
    report = tmp_path / "report.md"
    _run(db_path, "report", "few", "--out", str(report))
    humans = plain(next(line for line in report.read_text(encoding="utf-8").splitlines()    # the report's row
                        if line.startswith("|") and line.split("|")[1].strip() == "humans"))
    _run(db_path, "report", "few", "--out", str(tmp_path / "methods.md"), "--methods")
    methods = (tmp_path / "methods.md").read_text(encoding="utf-8")
    if rated == 1:
        assert harm["human_ci"] is None and harm["human_reason"] == REASON
        assert keys.index("human_reason") == keys.index("human_ci") + 1          # beside the interval it explains
        assert humans.split("|")[3].strip() == REASON            # in the 95% CI column
        assert (f"From people's ratings alone, H was {scores[0]:.3f} over 1 rated pair, with no interval ({REASON})."
                in methods)
        assert "bootstrap over pairs" not in methods
        return
    low, high = harm["human_ci"]
    assert -1 <= low < harm["human"] < high <= 1 and "human_reason" not in harm
    assert f"[{low:.3f}, {high:.3f}]" in humans and REASON not in humans and REASON not in methods
    # below 30 rated pairs the interval is the betting one (analysis.judge_validity.SMALL_N), not a bootstrap
    assert harm["human_ci"] == pytest.approx(list(betting_interval(np.array(scores), (-1.0, 1.0))), abs=1e-12)
    assert (f"From people's ratings alone, H was {harm['human']:.3f} (95% CI {low:.2f} to {high:.2f}) over {rated} "
            "rated pairs (a betting interval, valid at any number of pairs)." in methods), methods


def test_the_calibration_page_says_why_people_s_mean_has_no_interval(db_path, tmp_path, monkeypatch):
    study_with_rated_pairs(db_path, tmp_path, 1)
    at = signed_in("2_Calibration.py", monkeypatch)
    at.selectbox(key="study").set_value("few").run()
    assert not at.exception, at.exception
    said = " ".join(plain(m.value) for m in at.markdown)
    assert f"humans 1.000 ({REASON}) over 1 pair" in said, said
    # humans − LMRA on the one pair both scored: no interval either, and the same reason
    assert f"humans − LMRA 0.500 ({REASON}) on the pairs both scored" in said, said
    assert table_with(at, "judge") is not None
