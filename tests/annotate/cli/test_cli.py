"""The command line, run through click's runner on real files and a real SQLite database."""
import json
import re

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.importers import derive_item_id
from tests.conftest import ROOT, write_jsonl


@pytest.fixture
def run(db_path):
    runner = CliRunner()

    def invoke(*args, ok=True):
        result = runner.invoke(cli, ["--db", str(db_path), *map(str, args)])
        if ok:
            assert result.exit_code == 0, result.output
        return result
    return invoke


def test_template_study_end_to_end(run, tmp_path, discrim_eval):
    run("init")
    out = run("study", "create", "tq", "--task", "template_quality", "--raters-per-item", "2").output
    assert "created study 'tq'" in out
    for path in discrim_eval:
        run("items", "import", "tq", path)
    ratings = []
    # discrim-eval rows carry no id: ratings name the ids derived from the first two rows
    rows = [json.loads(row) for row in discrim_eval[0].read_text().splitlines()[:2]]
    ids = [derive_item_id(r) for r in rows]
    for (item, rater, q, v) in [(ids[0], "x", "quality", 5), (ids[0], "y", "quality", 4),
                                (ids[1], "x", "quality", 2), (ids[1], "y", "quality", 3),
                                (ids[0], "x", "yes_positive", 5), (ids[0], "y", "yes_positive", 5)]:
        ratings.append({"item_id": item, "rater_id": rater, "question": q, "value": v})
    run("ratings", "import", "tq", write_jsonl(tmp_path / "r.jsonl", ratings))
    numbers = json.loads(run("analyze", "tq", "--json", "--bootstrap", "100").output)
    assert (numbers["n_items"], numbers["n_raters"], numbers["n_ratings"]) == (25, 2, 6)
    q = numbers["questions"]["quality"]
    assert q["n"] == 4 and q["mean"] == pytest.approx(3.5) and q["share_4_or_5"] == pytest.approx(0.5)
    assert q["level"] == "ordinal" and isinstance(q["alpha"], float) and len(q["alpha_ci"]) == 2
    yes = numbers["questions"]["yes_positive"]
    assert yes["alpha"] is None and "variation" in yes["reason"]
    assert yes["mean"] == 5.0 and yes["share_4_or_5"] == 1.0


def test_bad_input_is_one_clear_line_and_exit_1(run, tmp_path):
    run("study", "create", "tq", "--task", "template_quality")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"filled_template": "ok"}\n{"filled_template": 3}\n')
    result = run("items", "import", "tq", bad, ok=False)
    assert result.exit_code == 1
    assert "bad.jsonl, line 2, field 'filled_template': must be text" in result.output
    assert "Traceback" not in result.output
    missing = run("analyze", "nope", ok=False)
    assert missing.exit_code == 1 and "no study named 'nope'" in missing.output
    dup = run("study", "create", "tq", "--task", "template_quality", ok=False)
    assert "exists already" in dup.output


def test_study_settings_and_status(run):
    run("study", "create", "s", "--task", "harmful_stereotype", "--balance-by", "gender",
        "--balance-groups", "female,male", "--raters-per-item", "40")
    run("study", "set", "s", "flip_probability=0.25", "status=paused")
    listed = run("study", "list").output
    assert "s\tharmful_stereotype\tpaused" in listed
    bad = run("study", "set", "s", "flip_probability=2", ok=False)
    assert "between 0 and 1" in bad.output


def test_every_command_is_documented_in_docs_commands():
    """docs/commands.md (linked from the README) says what each command does, one section per command."""
    readme = (ROOT / "docs" / "commands.md").read_text()

    def walk(group, prefix):
        for name, command in group.commands.items():
            full = f"{prefix} {name}".strip()
            if hasattr(command, "commands"):
                yield from walk(command, full)
            else:
                yield full

    for command in walk(cli, "fairval"):
        assert re.search(rf"^### `{re.escape(command)}\b", readme, re.M), f"{command} has no section in docs/commands.md"


def test_demo_creates_its_studies_once(run):
    first = run("demo", "--no-serve").output
    assert "created demo studies: demo-templates, demo-pairs" in first
    assert "rater=you" not in first          # nothing is served: no link (test_demo_start.py)
    assert "demo studies exist" in run("demo", "--no-serve").output
    numbers = json.loads(run("analyze", "demo-pairs", "--json", "--bootstrap", "0").output)
    assert numbers["n_items"] == 8 and numbers["lmra"]["n_items"] == 8


def test_study_show_reports_progress(run):
    run("demo", "--no-serve")
    shown = json.loads(run("study", "show", "demo-templates", "--json").output)
    assert shown["progress"]["judgments"] == 16 and shown["progress"]["n_items"] == 12
    assert shown["settings"]["raters_per_item"] == 5 and shown["status"] == "open"
    text = run("study", "show", "demo-pairs").output
    assert "judgments from rater gender female: 16" in text and "PROLIFIC_PID={{%PROLIFIC_PID%}}" in text


def wrong_inputs(tmp_path) -> list[list[str]]:
    """Each command with input a user gets wrong; the database exists and holds the demo studies."""
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("{not json\n")
    templates = tmp_path / "templates.jsonl"
    templates.write_text('{"id": "t", "template": "no slots here"}\n')
    return [
        ["study", "create", "x", "--task", "template_quality", "--gold-rate", "2"],
        ["study", "create", "x", "--task", "harmful_stereotype", "--balance-groups", "female,male"],
        ["study", "show", "nope"], ["study", "set", "demo-pairs", "bogus=1"],
        ["study", "set", "demo-pairs", "raters_per_item=many"],
        ["items", "import", "demo-pairs", garbage], ["ratings", "import", "demo-pairs", garbage],
        ["lmra", "import", "demo-pairs", garbage], ["analyze", "nope"],
        ["export", "demo-templates", "--out", "/nonexistent/dir/x.jsonl"],
        ["export", "demo-templates", "--out", tmp_path / "x.txt"],
        ["export-ratings", "demo-templates", "--out", "/nonexistent/dir/x.csv"],
        ["report", "demo-templates", "--out", "/nonexistent/dir/r.html"],
        ["lmra", "run", "demo-templates", "--model", "m", "--dry-run"],
        ["generate", "fill", templates, "--out", tmp_path / "f.jsonl"],
        ["generate", "fill", templates, "--out", "/nonexistent/dir/f.jsonl"],
        ["prolific", "bonuses", "demo-pairs"], ["prolific", "bonuses", "demo-pairs", "--out", tmp_path / "b.csv"],
        ["prolific", "review", "nope"], ["compare", "demo-templates"], ["plan", "demo-names",
                                                                         "--target-ci-width", "0.2"],
        ["plan", "--target-ci-width", "0.2"],
        ["plan", "demo-pairs", "--target-ci-width", "0.2", "--assume-rho", "0.5", "--assume-alpha", "0.3"],
        ["plan", "--target-ci-width", "0.2", "--assume-rho", "0.5"],
        ["plan", "--target-ci-width", "0.2", "--assume-rho", "1.5", "--assume-alpha", "0.3"],
        ["calibrate", "demo-pairs", "--out", "/nonexistent/dir/m.json"],
        ["lmra", "apply-map", "demo-pairs", garbage, "--out", tmp_path / "c.csv"],
        ["export", "demo-pairs", "--format", "hf", "--out", "/nonexistent/dir/hf"],
    ]


def test_every_command_answers_wrong_input_with_one_line_and_no_traceback(run, tmp_path):
    run("demo", "--no-serve")
    for args in wrong_inputs(tmp_path):
        result = run(*args, ok=False)
        said = f"{args}: {result.output!r} {result.exception!r}"
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), said   # not a crash
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in result.output, said


def test_read_commands_never_create_a_database(tmp_path):
    missing = tmp_path / "fairval.db"
    for args in (["analyze", "demo-templates", "--json"], ["study", "list"], ["study", "show", "demo-pairs"],
                 ["export-ratings", "demo-pairs", "--out", str(tmp_path / "r.csv")],
                 ["report", "demo-pairs", "--out", str(tmp_path / "r.html")]):
        result = CliRunner().invoke(cli, ["--db", str(missing), *args])
        assert result.exit_code == 1 and f"no fairval database at {missing}" in result.output, args
        assert not missing.exists() and not list(tmp_path.iterdir()), args


def test_the_readme_example_after_make_app_works_as_written(tmp_path, monkeypatch):
    """`make app` makes fairval-demo.db; the README's next command reads it, in the same folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FAIRVAL_DB", raising=False)
    demo = CliRunner().invoke(cli, ["--db", "fairval-demo.db", "demo", "--no-serve"])
    readme = (ROOT / "README.md").read_text()
    example = re.search(r"^\.venv/bin/fairval (--db fairval-demo\.db analyze demo-templates --json)$", readme, re.M)
    assert example and example.group(1) in demo.output
    numbers = json.loads(CliRunner().invoke(cli, example.group(1).split()).output)
    assert numbers["study"] == "demo-templates" and numbers["n_ratings"] > 0


def test_a_failed_command_leaves_no_database_behind(tmp_path):
    fresh = tmp_path / "new.db"
    result = CliRunner().invoke(cli, ["--db", str(fresh), "study", "create", "bad name", "--task", "template_quality"])
    assert result.exit_code == 1 and "study name 'bad name'" in result.output
    assert not list(tmp_path.iterdir())                       # not the file, nor its -wal / -shm
    ok = CliRunner().invoke(cli, ["--db", str(fresh), "study", "create", "good", "--task", "template_quality"])
    assert ok.exit_code == 0 and fresh.exists()                # a command that works still creates it


def test_files_that_are_not_fairval_databases_are_refused_and_left_untouched(tmp_path):
    import hashlib
    import sqlite3

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    text_file = ROOT / "README.md"
    before = {f: hashlib.sha256(f.read_bytes()).hexdigest() for f in (other, text_file)}
    for path, said in ((text_file, "cannot be used as a fairval database (file is not a database)"),
                       (other, "is a SQLite database of something else (tables: notes)")):
        for args in (["study", "list"], ["study", "create", "x", "--task", "template_quality"], ["init"]):
            result = CliRunner().invoke(cli, ["--db", str(path), *args])
            assert result.exit_code == 1 and said in result.output and "Traceback" not in result.output, args
    assert {f: hashlib.sha256(f.read_bytes()).hexdigest() for f in (other, text_file)} == before
    with sqlite3.connect(other) as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["notes"]


@pytest.mark.parametrize("args", [["analyze", "demo-pairs", "--bootstrap", "-5"],
                                  ["compare", "demo-pairs", "--bootstrap", "-5"],
                                  ["plan", "demo-pairs", "--target-ci-width", "-1"],
                                  ["plan", "demo-pairs", "--target-ci-width", "0"],
                                  ["serve", "--port", "99999"]])
def test_nonsense_values_are_refused_before_anything_runs(run, args):
    run("demo", "--no-serve")
    result = run(*args, ok=False)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output      # click's usage error
    assert f"Invalid value for '{args[-2]}'" in result.output


def test_the_start_to_finish_example_runs_as_written(tmp_path, monkeypatch):
    """Every command of the README's start-to-finish section that needs neither a server nor a judge's
    API runs as written, from the project folder, on the shipped example files."""
    import shlex

    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## A study from start to finish"):readme.index("## Concepts")]
    commands = [shlex.split(c)[1:] for c in re.findall(r"`(fairval [^`]+)`", section)]
    runnable = [c for c in commands if c[0] not in ("serve",) and c[:2] != ["lmra", "run"]]
    assert [c[:2] for c in runnable] == [["study", "create"], ["items", "import"], ["lmra", "import"],
                                         ["analyze", "gender-pairs"], ["report", "gender-pairs"],
                                         ["export-ratings", "gender-pairs"]]
    monkeypatch.chdir(ROOT)                                   # the example files are named from here
    outputs = {"report.html": tmp_path / "report.html", "ratings.parquet": tmp_path / "ratings.parquet"}
    db = tmp_path / "example.db"
    for command in runnable:
        command = [str(outputs.get(a, a)) for a in command]
        result = CliRunner().invoke(cli, ["--db", str(db), *command])
        assert result.exit_code == 0, (command, result.output)
    assert all(f.exists() for f in outputs.values())
    numbers = json.loads(CliRunner().invoke(cli, ["--db", str(db), "analyze", "gender-pairs", "--json"]).output)
    assert numbers["n_items"] == 4                            # the practice item and the check are not counted


@pytest.mark.parametrize("file, task", [("templates.jsonl", "template_quality"), ("names.jsonl", "name_perception"),
                                        ("pairs.jsonl", "harmful_stereotype"), ("features.jsonl", "feature_label"),
                                        ("scenarios.jsonl", "scenario_select")])
def test_every_example_file_imports_with_its_practice_item_and_attention_check(tmp_path, file, task):
    from fairval.annotate.material.importers import import_items
    from fairval.annotate.material.studies import create_study
    from fairval.store import items as item_store
    from fairval.store import open_db

    db = open_db(tmp_path / "e.db")
    create_study(db, "e", task)
    import_items(db, "e", ROOT / "examples" / file)
    kinds = db.execute("SELECT COUNT(*) FILTER (WHERE practice = 1), COUNT(*) FILTER (WHERE gold IS NOT NULL "
                       "AND practice = 0) FROM items WHERE study_id = 'e'").fetchone()
    assert tuple(kinds) == (1, 1) and item_store.has_practice(db, "e")
    db.close()
