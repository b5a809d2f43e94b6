"""StudyNumbers' blocks are typed to the leaves where issue 48 has reached (questions, templates, names,
raters, excluded_raters): frozen dataclasses a notebook reads by attribute, turned into `analyze --json`'s
plain form only by to_dict() (test_numbers_unchanged checks that form against main's)."""
import dataclasses
import json

import pytest
from click.testing import CliRunner

import fairval
from fairval.annotate.cli.main import cli
from fairval.annotate.results.result import ExcludedRater, Names, QuestionNumbers, Rater, TemplateRow


def _cli(db, *args):
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_blocks_are_frozen_dataclasses_read_by_attribute(tmp_path):
    db = tmp_path / "demo.db"
    _cli(db, "demo", "--no-serve")
    with fairval.open(db) as opened:
        templates = opened.study("demo-templates").analyze(bootstrap=0)
        names = opened.study("demo-names").analyze(bootstrap=0)
    printed = json.loads(_cli(db, "analyze", "demo-templates", "--json", "--bootstrap", "0"))
    assert all(isinstance(row, TemplateRow) for row in templates.templates) and templates.templates
    # the attribute is the number the JSON prints under the same name
    assert [(r.template, r.question, r.n) for r in templates.templates] == [
        (r["template"], r["question"], r["n"]) for r in printed["templates"]]
    for typed, plain in zip(templates.templates, printed["templates"]):     # the CLI prints 12 digits
        assert typed.mean == pytest.approx(plain["mean"], rel=1e-11)
    quality = templates.questions["quality"]
    assert isinstance(quality, QuestionNumbers) and quality.scale == "likert" and quality.level == "ordinal"
    assert quality.n == printed["questions"]["quality"]["n"] == 16          # 8 items by 2 pilots
    assert names.questions["race"].scale == "nominal" and names.questions["race"].mean is None
    pilots = {r.rater_id: r for r in templates.raters}
    assert all(isinstance(r, Rater) for r in pilots.values()) and {"pilot-1", "pilot-2"} <= set(pilots)
    assert pilots["pilot-1"].n_items == 8 and pilots["pilot-1"].flags == ()    # 8 items rated by each pilot
    assert templates.excluded_raters == () and isinstance(names.names, Names)
    assert list(names.names.by_question) == ["race", "gender"]                 # the task's perceived questions
    with pytest.raises(dataclasses.FrozenInstanceError):
        templates.templates[0].mean = 5.0


def test_excluded_raters_are_typed_and_print_as_before(tmp_path):
    db = tmp_path / "demo.db"
    _cli(db, "demo", "--no-serve")
    check = {"item_id": "check-1", "rater_id": "careless", "question": "race", "value": "white"}
    ratings = [check, {**check, "question": "gender", "value": "male"}]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ratings))
    _cli(db, "ratings", "import", "demo-names", str(tmp_path / "r.jsonl"))
    with fairval.open(db) as opened:
        numbers = opened.study("demo-names").analyze(bootstrap=0, exclude_flagged=True)
    (left_out,) = numbers.excluded_raters
    assert isinstance(left_out, ExcludedRater) and left_out.rater_id == "careless"
    assert any("gold accuracy 0%" in flag for flag in left_out.flags)          # both answers to the check wrong
    assert numbers.to_dict()["excluded_raters"] == {"careless": list(left_out.flags)}
