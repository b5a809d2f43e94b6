"""Gold items never sit unused (issue 54): `_gold` rows imported into a study whose gold rate is 0 (the
default) are announced in one line with a rate to set, so is a rate of 0 set on a study that has them, and
`study show` and Results count the checks each rater met, counted here from what serving handed out."""
import re

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.gold_checks import PROPOSED_GOLD_RATE
from fairval.annotate.material.studies import load_study
from fairval.annotate.rating import session
from tests.conftest import write_jsonl

ANSWER = {"quality": "4", "yes_positive": "5"}


@pytest.fixture
def run(db_path):
    runner = CliRunner()

    def invoke(*args):
        result = runner.invoke(cli, ["--db", str(db_path), *map(str, args)])
        assert result.exit_code == 0, result.output
        return result.output
    return invoke


def items_file(tmp_path):
    rows = [{"id": f"q{k}", "filled_template": f"Should the committee fund proposal {k}?"} for k in range(12)]
    rows += [{"id": f"check{k}", "filled_template": "Please answer 1 to both questions.",
              "_gold": {"quality": 1, "yes_positive": 1}, "note": k} for k in range(2)]
    return write_jsonl(tmp_path / "items.jsonl", rows)


def test_gold_rows_in_a_study_without_a_gold_rate_are_announced_and_counted(run, db_path, tmp_path):
    from fairval.store import open_db

    run("study", "create", "tq", "--task", "template_quality", "--raters-per-item", "2")
    out = run("items", "import", "tq", items_file(tmp_path)).splitlines()
    said = [line for line in out if "gold" in line]
    assert len(said) == 1 and "2 gold items" in said[0] and "gold rate of 0" in said[0]
    assert f"gold_rate={PROPOSED_GOLD_RATE}" in said[0]
    assert "none served (gold rate 0)" in run("study", "show", "tq")
    set_out = run("study", "set", "tq", "gold_rate=0.25")
    assert "gold" not in set_out.replace("study 'tq' updated", "")
    db = open_db(db_path)
    study = load_study(db, "tq")
    met = {}
    for r in ("ann", "bo"):
        session.arrive(db, "tq", r, source="link")
        session.give_consent(db, "tq", r, True)
        session.finish_instructions(db, "tq", r)
        met[r] = 0
        for _ in range(7):
            served = session.serve_next_item(db, study, r)
            if served is None:
                break
            met[r] += served.gold
            session.record_answer(db, study, r, served.item_id, ANSWER)
    db.close()
    assert met["ann"] >= 1                    # a rate of 1/4 over 7 items serves a check
    shown = run("study", "show", "tq")
    line = next(line for line in shown.splitlines() if "attention checks" in line)
    assert re.search(r"2 gold items at gold rate 0\.25; checks met per rater: ann (\d+), bo (\d+)", line)
    assert [int(n) for n in re.findall(r"(?:ann|bo) (\d+)", line)] == [met["ann"], met["bo"]]
    back = run("study", "set", "tq", "gold_rate=0")                   # 0 again, on a study with checks
    assert "2 gold items" in back and "gold rate of 0" in back


def test_no_word_of_gold_where_there_is_none_or_it_is_served(run, tmp_path):
    run("study", "create", "plain", "--task", "template_quality")
    rows = [{"id": "a", "filled_template": "Q?"}]
    assert "gold" not in run("items", "import", "plain", write_jsonl(tmp_path / "a.jsonl", rows))
    assert "attention checks" not in run("study", "show", "plain")
    run("study", "create", "checked", "--task", "template_quality", "--gold-rate", "0.2")
    assert "gold rate of 0" not in run("items", "import", "checked", items_file(tmp_path))


def test_the_python_api_warns_of_unused_checks(db_path, tmp_path):
    import fairval
    study = fairval.open(db_path).create_study("api", "template_quality")
    with pytest.warns(UserWarning, match="2 gold items .* gold rate of 0"):
        assert study.import_items(items_file(tmp_path)) == 14
