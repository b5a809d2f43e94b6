"""`fairval demo` keeps out of the user's own database (QA walk 62): its own file unless --db, and a --db
that holds the user's studies is refused before anything is written."""
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.studies import list_study_names
from fairval.store import open_db

DEMO = {"demo-templates", "demo-pairs", "demo-names", "demo-features", "demo-scenarios"}


def _names(path):
    db = open_db(str(path))
    try:
        return set(list_study_names(db))
    finally:
        db.close()


def test_demo_without_db_writes_fairval_demo_db_not_the_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FAIRVAL_DB", raising=False)
    mine = CliRunner().invoke(cli, ["study", "create", "mine", "--task", "template_quality"])
    assert mine.exit_code == 0, mine.output
    result = CliRunner().invoke(cli, ["demo", "--no-serve"])
    assert result.exit_code == 0, result.output
    assert _names(tmp_path / "fairval.db") == {"mine"}                 # the user's file is untouched
    assert _names(tmp_path / "fairval-demo.db") == DEMO
    assert "--db fairval-demo.db analyze demo-templates" in result.output


def test_a_db_holding_other_studies_is_refused_in_one_line_and_left_as_it_was(tmp_path):
    path = tmp_path / "work.db"
    assert CliRunner().invoke(cli, ["--db", str(path), "study", "create", "mine",
                                    "--task", "template_quality"]).exit_code == 0
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["--db", str(path), "demo", "--no-serve"])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1, result.output
    assert lines[0].startswith(f"Error: {path} holds studies other than the demo's (mine)")
    assert "fairval-demo.db" in lines[0]
    assert _names(path) == {"mine"} and path.read_bytes() == before


def test_a_db_holding_only_the_demo_is_used_again(tmp_path):
    path = tmp_path / "d.db"
    assert CliRunner().invoke(cli, ["--db", str(path), "demo", "--no-serve"]).exit_code == 0
    again = CliRunner().invoke(cli, ["--db", str(path), "demo", "--no-serve"])
    assert again.exit_code == 0 and "demo studies exist" in again.output
