"""The Python API (docs/python-api.md): fairval.open(...).study(...).analyze().to_dict() is what `analyze
--json` prints, key for key; ratings and items as DataFrames; imports from paths or rows; one exception root."""
import json
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

import fairval
from fairval.annotate.cli.main import cli
from fairval.annotate.outputs.formats import plain_number
from tests.conftest import ROOT, write_jsonl

DEMO_STUDIES = ["demo-templates", "demo-pairs", "demo-names", "demo-features", "demo-scenarios"]


@pytest.fixture
def demo_db(tmp_path):
    path = tmp_path / "demo.db"
    result = CliRunner().invoke(cli, ["--db", str(path), "demo", "--no-serve"])
    assert result.exit_code == 0, result.output
    return path


def analyze_json(path, *args) -> dict:
    result = CliRunner().invoke(cli, ["--db", str(path), "analyze", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_analyze_is_analyze_json_on_every_demo_study(demo_db):
    with fairval.open(demo_db) as db:
        assert db.studies() == DEMO_STUDIES
        for name in DEMO_STUDIES:
            numbers = db.study(name).analyze()
            assert isinstance(numbers, fairval.StudyNumbers)
            # the CLI prints the same numbers to 12 significant digits (annotate.outputs.formats.plain_number)
            assert json.loads(json.dumps(plain_number(numbers.to_dict()))) == analyze_json(demo_db, name), name
        other = db.study("demo-pairs").analyze(bootstrap=0, exclude_flagged=True)
        assert plain_number(other.to_dict()) == analyze_json(demo_db, "demo-pairs", "--bootstrap", "0",
                                                             "--exclude-flagged")


def test_the_result_is_frozen_and_each_number_has_one_name(demo_db):
    with fairval.open(demo_db) as db:
        numbers = db.study("demo-pairs").analyze(bootstrap=200)
    with pytest.raises(AttributeError):
        numbers.harm = {}
    out = numbers.to_dict()
    out["harm"]["human"] = 99                                   # a copy: the result is untouched
    assert numbers.harm.human != 99
    with pytest.raises(AttributeError):
        numbers.harm.ppi = None                                 # frozen to the leaves
    assert numbers.rate is numbers.harm
    for key in ("rate_human_ci", "rate_lmra_ci", "rate_difference", "ppi", "rate_lmra", "rate"):
        assert key not in numbers.lmra.to_dict(), key           # H's numbers live in `harm` alone
    for key in ("human", "human_ci", "lmra", "lmra_ci", "difference", "ppi", "n_items_human", "n_items_lmra"):
        assert numbers.harm.has(key), key
    # the main judge's interval of H is the bootstrap of its scores, computed here independently
    assert numbers.harm.lmra_ci[0] <= numbers.harm.lmra <= numbers.harm.lmra_ci[1]


def test_ratings_and_items_are_the_export_columns(demo_db, tmp_path):
    import pandas as pd

    with fairval.open(demo_db) as db:
        study = db.study("demo-pairs")
        ratings, items = study.ratings(), study.items()
    result = CliRunner().invoke(cli, ["--db", str(demo_db), "export-ratings", "demo-pairs", "--out",
                                      str(tmp_path / "r.csv")])
    assert result.exit_code == 0, result.output
    exported = pd.read_csv(tmp_path / "r.csv", dtype=str, keep_default_na=False)
    assert list(ratings.columns) == list(exported.columns)
    assert len(ratings) == len(exported) and set(ratings["rater_id"]) == set(exported["rater_id"])
    assert {"item_id", "prompt", "response_a", "response_b", "gold", "practice", "judge_only"} <= set(items.columns)
    assert items["item_id"].is_unique


def test_imports_take_paths_or_rows_all_or_nothing(tmp_path):
    with fairval.open(tmp_path / "new.db") as db:
        study = db.create_study("t", "template_quality", raters_per_item=1)
        assert study.import_items([{"id": "a", "filled_template": "Approve the loan?"},
                                   {"id": "b", "filled_template": "Grant the permit?"}]) == 2
        assert study.import_items(write_jsonl(tmp_path / "more.jsonl",
                                              [{"id": "c", "filled_template": "Hire them?"}])) == 1
        with pytest.raises(fairval.ImportProblem, match=r"rows, line 2, field 'question'"):
            study.import_ratings([{"item_id": "a", "rater_id": "r", "question": "quality", "value": 5},
                                  {"item_id": "b", "rater_id": "r", "question": "nope", "value": 5}])
        assert study.ratings().empty                           # nothing of the refused rows was written
        assert study.import_ratings([{"item_id": "a", "rater_id": "r", "question": "quality", "value": 5}]) == 1
        with pytest.raises(fairval.ImportProblem, match="iterable of dicts"):
            study.import_items({"id": "x"})
        with pytest.raises(fairval.StudyError, match=r"no study 'missing'.*it has t"):
            db.study("missing")
        with pytest.raises(fairval.StudyError, match="bootstrap"):
            study.analyze(bootstrap=-1)
        assert len(study.items()) == 3


def test_every_refusal_has_the_one_root():
    kinds = [fairval.StoreError, fairval.StudyError, fairval.TaskError, fairval.ImportProblem, fairval.AnswerError,
             fairval.RaterIdError, fairval.GenerationError, fairval.OutputError, fairval.JudgeError,
             fairval.ProlificError]
    assert all(issubclass(k, fairval.FairvalError) for k in kinds)
    assert not any(issubclass(k, (ValueError, KeyError)) for k in kinds)   # a bug's ValueError is not a refusal
    from fairval.annotate.material.tasks import get_task
    with pytest.raises(fairval.TaskError, match="unknown task 'x'"):
        get_task("x")


def test_a_bug_is_not_turned_into_one_line(tmp_path, monkeypatch):
    """The command line prints refusals in one line; a KeyError from a bug keeps its traceback."""
    from fairval.annotate.results import numbers

    def broken(*_a, **_k):
        raise KeyError("a bug")
    monkeypatch.setattr(numbers, "study_numbers", broken)
    CliRunner().invoke(cli, ["--db", str(tmp_path / "d.db"), "study", "create", "s", "--task", "template_quality"])
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "d.db"), "analyze", "s"])
    assert isinstance(result.exception, KeyError)               # not a polite line: a bug shows as one


def test_the_documented_example_runs(tmp_path):
    text = (ROOT / "docs" / "python-api.md").read_text()
    code = "\n".join(re.findall(r"```python\n(.*?)```", text, re.S))
    assert "fairval.open" in code
    made = CliRunner().invoke(cli, ["--db", str(tmp_path / "fairval-demo.db"), "demo", "--no-serve"])
    assert made.exit_code == 0, made.output
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "demo-pairs" in done.stdout and "no study 'no-such-study'" in done.stdout
    # every value it prints is a number or says why there is none (it printed "None None" for PPI on the demo)
    lines = done.stdout.splitlines()
    assert not any(re.search(r"\bNone\b", line) for line in lines), done.stdout
    shown = json.loads(CliRunner().invoke(cli, ["--db", str(tmp_path / "fairval-demo.db"), "analyze", "demo-pairs",
                                                "--json"]).output)
    assert shown["harm"]["ppi"]["value"] is None                  # the demo has no pair the judge alone scored
    assert f"no PPI: {shown['harm']['ppi']['reason']}" in lines
    h, low, high = map(float, re.fullmatch(r"(\S+) \((\S+), (\S+)\)", lines[1]).groups())
    assert [h, low, high] == pytest.approx([shown["harm"]["human"], *shown["harm"]["human_ci"]], rel=1e-9)
    assert float(lines[lines.index(f"no PPI: {shown['harm']['ppi']['reason']}") + 1]) == \
        pytest.approx(shown["lmra"]["pearson_r"], rel=1e-9)


def test_the_design_calls_are_the_commands(cli_output, tmp_path, db_path):
    """Each design call records what its command records (on a copy of the same database), refuses a second
    design as the command does, and trust() is `judge trust --json`."""
    import sqlite3

    from tests.annotate.judge.test_escalate import _main, _pilot
    _pilot(cli_output, tmp_path)
    _main(cli_output, tmp_path)
    copies = {kind: tmp_path / f"{kind}.db" for kind in ("uniform", "escalate", "adaptive")}
    for copy in copies.values():                   # SQLite's backup: the write-ahead log's pages too
        with sqlite3.connect(db_path) as source, sqlite3.connect(copy) as target:
            source.backup(target)
    cli_output("study", "sample", "main", "--n", "7", "--seed", "4")
    with fairval.open(db_path) as db:
        by_command = sorted(db.study("main").items().query("not judge_only")["item_id"])
    with fairval.open(copies["uniform"]) as db:
        kept = db.study("main").sample(7, 4)
        assert kept == by_command == sorted(db.study("main").items().query("not judge_only")["item_id"])
        assert len(kept) == 7
        with pytest.raises(fairval.FairvalError, match="has its human sample already"):
            db.study("main").escalate("pilot")
    with fairval.open(copies["escalate"]) as db:
        drawn = db.study("main").escalate("pilot")
        assert drawn["kept"] == [f"m{k:02d}" for k in range(20, 30)] and drawn["sample"]["trusted"] == 20
        assert db.study("pilot").trust() == json.loads(cli_output("judge", "trust", "pilot", "--json"))
    with fairval.open(copies["adaptive"]) as db:
        design = db.study("main").set_adaptive(12)
        assert design["budget"] == 12 and design["judge"] == "j"
        with pytest.raises(fairval.FairvalError, match="whole number"):
            db.study("pilot").set_adaptive(2.5)


def test_a_refused_label_says_the_fix_as_label_map_and_the_fix_as_said_works(tmp_path):
    """From Python the map is the label_map argument: the refusal says it that way, not as the CLI's --map."""
    from fairval.errors import ImportProblem

    with fairval.open(tmp_path / "api-map.db") as db:
        study = db.create_study("names", "name_perception")
        rows = [{"name": "Keisha Washington", "name_group": "black"}, {"name": "Greg Baker", "name_group": "white_men"}]
        with pytest.raises(ImportProblem) as refused:
            study.import_items(rows)
        said = str(refused.value)
        assert refused.value.line == 1 and refused.value.field == "name_group"          # where, kept
        assert "--map" not in said and "label_map={'black': 'Black+GENDER'}" in said, said
        assert study.import_items(rows, label_map={"black": "Black+female"}) == 2
