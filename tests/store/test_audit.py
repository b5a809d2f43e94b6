"""The audit trail: every change a researcher makes is recorded with who, when, what and which study, from
the command line (the OS user) and from the pages (the signed-in researcher); nothing can change or remove
a line, not even SQL."""
import getpass
import hashlib
import json

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.store import audit, open_db
from tests.conftest import write_jsonl

PAIR = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}


def run(db_path, *args):
    result = CliRunner().invoke(cli, ["--db", str(db_path), *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_command_line_records_who_did_what(db_path, tmp_path):
    run(db_path, "study", "create", "p", "--task", "harmful_stereotype", "--raters-per-item", "1")
    items = write_jsonl(tmp_path / "pairs.jsonl", [{"id": f"p{k}", **PAIR} for k in range(6)])
    run(db_path, "items", "import", "p", items)
    run(db_path, "study", "set", "p", "min_seconds=2")
    run(db_path, "study", "sample", "p", "--n", "3", "--seed", "1")
    run(db_path, "study", "set", "p", "status=paused")
    run(db_path, "export-ratings", "p", "--out", tmp_path / "r.csv")
    run(db_path, "report", "p", "--out", tmp_path / "report.md")
    trail = json.loads(run(db_path, "audit", "p", "--json"))
    assert [r["action"] for r in trail] == ["study.create", "study.open", "import.items", "study.configure",
                                            "study.sample", "study.pause", "export.ratings", "export.report"]
    assert {(r["actor"], r["via"], r["study_id"]) for r in trail} == {(getpass.getuser(), "cli", "p")}
    imported = trail[2]["details"]
    assert imported["source"] == "pairs.jsonl" and imported["rows"] == 6
    assert imported["sha256"] == hashlib.sha256(items.read_bytes()).hexdigest()
    assert trail[1]["details"]["reason"] == "its first items were imported"
    assert trail[3]["details"]["changes"] == {"min_seconds": 2} and trail[5]["details"]["before"] == "open"
    assert trail[6]["details"]["file"] == "r.csv"
    assert json.loads(run(db_path, "audit", "p", "--since", "2999-01-01", "--json")) == []
    assert "study.create" in run(db_path, "audit")


def test_no_line_can_be_changed_or_removed(db):
    audit.acting_as("someone", "cli")
    audit.record(db, "study.create", "s", task="x")
    for sql in ("UPDATE audit SET actor = 'nobody'", "DELETE FROM audit"):
        with pytest.raises(Exception, match="append-only"):
            db.execute(sql)
        if db.dialect == "postgresql":
            db.rollback()
    assert [(r["actor"], r["action"]) for r in audit.entries(db)] == [("someone", "study.create")]


def test_a_page_records_the_signed_in_researcher(tmp_path, monkeypatch):
    from tests.ui.apptest import page

    path = tmp_path / "page.db"
    monkeypatch.setenv("FAIRVAL_DB", str(path))
    monkeypatch.setenv("FAIRVAL_RESEARCHER_PASSWORD", "s3cret")
    open_db(path).close()
    at = page("3_Manage.py")
    at.text_input[0].input("wrong")
    at.button[0].click().run()
    at.text_input[0].input("s3cret")
    at.button[0].click().run()
    at.text_input[0].input("made-on-page")
    at.selectbox[0].set_value("name_perception")
    at.button[0].click().run()
    assert not at.exception
    db = open_db(path)
    trail = audit.entries(db)
    db.close()
    assert [r["action"] for r in trail] == ["sign-in.failed", "sign-in", "study.create"]
    assert {r["via"] for r in trail} == {"page"}
    # the wrong password is nobody's yet; the right one signs in "a researcher" at this address
    assert [r["actor"].split(" at ")[0] for r in trail] == ["unknown name", "researcher", "researcher"]
    assert trail[-1]["study_id"] == "made-on-page"


def test_the_stopping_rule_acts_for_its_stop_alone(db, db_path):
    """A stop recorded inside someone's action (a rater's Submit, the demo's pilot) is the rule's; what the
    thread does after it is again whoever acted before (it was left as the rule's: the demo's later studies
    showed as created by "the study's stopping rule")."""
    from fairval.annotate.material.studies import load_study
    from fairval.annotate.rating.submit import RULE, record_stop

    run(db_path, "study", "create", "p", "--task", "harmful_stereotype")
    audit.acting_as("a researcher", "page")
    assert record_stop(db, load_study(db, "p"), {"at": 1_700_000_000.0, "reason": "test", "ci": [0.0, 1.0]})
    assert audit.actor() == ("a researcher", "page")
    audit.record(db, "study.create", "q", task="x")
    whose = {r["action"]: (r["actor"], r["via"]) for r in audit.entries(db)}
    assert whose["study.stop"] == (RULE, "rule") and whose["study.create"] == ("a researcher", "page")
