"""A task declared as data: created from a JSON file, served, rated and analysed without code changes."""
import json

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.errors import StudyError
from tests.conftest import write_jsonl
from tests.ui.apptest import current_item, rater_app, submit, titles

TOXICITY = {
    "name": "toxicity", "display": "template", "required_fields": ["text"],
    "instructions": "Rate how offensive each reply is.",
    "questions": [
        {"id": "offense", "prompt": "How offensive is this reply?", "level": "ordinal",
         "options": [{"value": v, "label": f"{v}"} for v in range(1, 8)]},
        {"id": "target", "prompt": "Who is it aimed at?", "options": ["nobody", "a group", "a person"]},
    ],
}


def test_declared_task_end_to_end(db_path, db, tmp_path):
    task_file = tmp_path / "toxicity.json"
    task_file.write_text(json.dumps(TOXICITY))
    items = write_jsonl(tmp_path / "items.jsonl", [{"id": f"t{i}", "text": f"Reply number {i}"} for i in range(2)])
    runner = CliRunner()
    for args in (["study", "create", "tox", "--task-file", task_file, "--raters-per-item", "2"],
                 ["items", "import", "tox", items]):
        result = runner.invoke(cli, ["--db", str(db_path), *map(str, args)])
        assert result.exit_code == 0, result.output
    for rater, offense in (("r1", {"t0": "6", "t1": "2"}), ("r2", {"t0": "7", "t1": "1"})):
        at = rater_app(study="tox", rater=rater)
        at.button(key="consent-yes").click().run()
        at.button(key="start").click().run()
        for _ in range(2):
            item = current_item(at)
            assert at.text[0].value == f"Reply number {item[1:]}"
            submit(at, {"offense": offense[item], "target": "a group"})
        assert titles(at) == ["Thank you, you have finished"]
    numbers = json.loads(runner.invoke(cli, ["--db", str(db_path), "analyze", "tox", "--json",
                                             "--bootstrap", "0"]).output)
    offense = numbers["questions"]["offense"]
    assert offense["level"] == "ordinal" and offense["mean"] == pytest.approx(4.0) and offense["alpha"] > 0.5
    assert "share_4_or_5" not in offense
    assert numbers["questions"]["target"]["level"] == "nominal"
    assert numbers["questions"]["target"]["alpha"] is None            # no variation
    configure_study(db, "tox", raters_per_item=3)
    assert load_study(db, "tox").task.question("offense").level == "ordinal"


@pytest.mark.parametrize("change, words", [
    ({"questions": []}, "needs 'questions'"),
    ({"display": "video"}, "display must be"),
    ({"questions": [{"id": "q", "prompt": "?", "options": ["a"]}]}, "two or more distinct"),
    ({"questions": [{"id": "q", "prompt": "?", "options": ["a", "b"], "level": "ordinal"}]}, "numeric option"),
    ({"questions": [{"id": "q", "prompt": "?", "options": ["a", "b"]}] * 2}, "used twice"),
])
def test_bad_task_definitions_are_refused(db, change, words):
    with pytest.raises(StudyError, match=words):
        create_study(db, "bad", task_definition={**TOXICITY, **change})
