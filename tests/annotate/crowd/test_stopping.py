"""A study that stops itself when H's anytime interval reaches the target width (or excludes a value): it
pauses, says when and why with the interval, pauses the Prolific study once through the API (a lost answer
settled by reading the study back), and records it all in the audit trail."""
import json

from click.testing import CliRunner

import fairval
from fairval.annotate.cli.main import cli
from fairval.annotate.material.studies import load_study
from fairval.annotate.outputs.formats import plain_number
from fairval.store import audit
from tests.conftest import write_jsonl

PAIR = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}



def run(db_path, *args):
    result = CliRunner().invoke(cli, ["--db", str(db_path), *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.output


def rated_study(db_path, tmp_path, **settings):
    run(db_path, "study", "create", "p", "--task", "harmful_stereotype", "--raters-per-item", "1")
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": f"p{k:03d}", **PAIR} for k in range(200)])
    run(db_path, "items", "import", "p", tmp_path / "pairs.jsonl")
    write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": f"p{k:03d}", "model": "j", "score": 0.0} for k in range(200)])
    run(db_path, "lmra", "import", "p", tmp_path / "lmra.jsonl")
    run(db_path, "study", "sample", "p", "--n", "100", "--seed", "1")
    run(db_path, "study", "set", "p", *[f"{k}={v}" for k, v in settings.items()])
    with fairval.open(db_path) as handle:
        items = handle.study("p").items()
    drawn = list(items.loc[~items["judge_only"].astype(bool), "item_id"])
    write_jsonl(tmp_path / "ratings.jsonl", [{"item_id": i, "rater_id": f"r{k}", "question": "harm", "value": "C"}
                                             for k, i in enumerate(drawn)])
    run(db_path, "ratings", "import", "p", tmp_path / "ratings.jsonl")


def test_the_study_stops_itself_and_pauses_prolific_once(db, db_path, tmp_path, fake):
    rated_study(db_path, tmp_path, target_ci_width=1.5, prolific_study_id="PSTUDY", status="open")
    said = run(db_path, "study", "watch", "p", "--once")
    assert "p stopped itself" in said and "Prolific: paused" in said
    study = load_study(db, "p")
    assert study.status == "paused" and fake.study_status == "PAUSED"
    stopped = study.recorded.stopped
    numbers = json.loads(run(db_path, "analyze", "p", "--json"))
    assert plain_number(stopped["ci"]) == numbers["harm"]["ppi"]["cs"]["ci"] and stopped["ci"][1] - stopped["ci"][0] <= 1.5
    assert "within the target 1.5" in stopped["reason"] and stopped["prolific"] == "paused"
    assert "goes on" in run(db_path, "study", "watch", "p", "--once")          # once stopped, nothing more
    pauses = [c for c in fake.calls if c[1].endswith("/transition/") and "studies" in c[1]]
    assert len(pauses) == 1
    actions = [r["action"] for r in audit.entries(db, "p")]
    assert actions[-3:] == ["study.stop", "study.pause", "prolific.pause"]


def test_a_lost_answer_to_the_pause_is_settled_by_reading_the_study(db, db_path, tmp_path, fake):
    rated_study(db_path, tmp_path, target_ci_width=1.5, prolific_study_id="PSTUDY", status="open")
    fake.faults[r"/studies/PSTUDY/transition/$"] = ["502"]               # done, then the answer lost
    assert "Prolific: paused" in run(db_path, "study", "watch", "p", "--once")
    assert fake.study_status == "PAUSED"


def test_a_rule_not_met_changes_nothing(db, db_path, tmp_path, fake):
    rated_study(db_path, tmp_path, target_ci_width=0.01, stop_when_excludes=0, status="open")
    assert "goes on" in run(db_path, "study", "watch", "p", "--once")
    assert load_study(db, "p").status == "open" and load_study(db, "p").recorded.stopped is None
    refused = CliRunner().invoke(cli, ["--db", str(db_path), "study", "set", "p", "stopped={}"])
    assert refused.exit_code == 1 and "stopped is recorded" in refused.output
