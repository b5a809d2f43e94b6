"""A task declared as data gets the numbers and the export its declaration calls for, as a preset does
(issue 48): a template task with 1–5 questions gets the per-template table and the validated set of the
templates that pass; a name task gets accuracy per intended group for each question naming an item field.
No preset name decides it. Through the real CLI on a real SQLite file."""
import json

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from tests.conftest import write_jsonl

LIKERT = [{"value": v, "label": str(v)} for v in range(1, 6)]
VIGNETTES = {
    "name": "vignette_quality", "display": "template", "required_fields": ["filled_template"],
    "instructions": "Rate each vignette.",
    "questions": [{"id": "clarity", "prompt": "The vignette is clear.", "level": "ordinal", "options": LIKERT},
                  {"id": "realism", "prompt": "The vignette is realistic.", "level": "ordinal", "options": LIKERT}],
}
ORIGINS = {
    "name": "name_origin", "display": "name", "required_fields": ["name", "origin"],
    "questions": [{"id": "origin", "prompt": "Where would people say this name is from?",
                   "options": ["Ireland", "Japan", "Nigeria", "can't tell"]},
                  {"id": "familiar", "prompt": "Have you met someone with this name?", "options": ["yes", "no"]}],
}


@pytest.fixture
def run(tmp_path):
    def invoke(*args):
        result = CliRunner().invoke(cli, ["--db", str(tmp_path / "f.db"), *map(str, args)])
        assert result.exit_code == 0, result.output
        return result.output
    return invoke


def _declared(run, tmp_path, name, task, items, ratings):
    (tmp_path / f"{name}.json").write_text(json.dumps(task))
    run("study", "create", name, "--task-file", tmp_path / f"{name}.json", "--raters-per-item", "3")
    run("items", "import", name, write_jsonl(tmp_path / f"{name}-items.jsonl", items))
    run("ratings", "import", name, write_jsonl(tmp_path / f"{name}-ratings.jsonl", ratings))


def test_a_declared_template_task_gets_the_per_template_table_and_export(run, tmp_path):
    items = [{"id": f"v{t}-{k}", "filled_template": f"Vignette {t}, fill {k}", "decision_question_id": t}
             for t in (0, 1) for k in range(3)]
    # template 0 scores 5, 5, 4 on both questions; template 1 is realistic but unclear (2s)
    scores = {(0, "clarity"): [5, 5, 4], (0, "realism"): [5, 5, 4], (1, "clarity"): [2, 2, 3], (1, "realism"): [5, 4, 5]}
    ratings = [{"item_id": item["id"], "rater_id": f"r{r}", "question": q, "value": scores[(item["decision_question_id"], q)][r]}
               for item in items for q in ("clarity", "realism") for r in range(3)]
    _declared(run, tmp_path, "vq", VIGNETTES, items, ratings)
    numbers = json.loads(run("analyze", "vq", "--json", "--bootstrap", "0"))
    rows = {(row["template"], row["question"]): row for row in numbers["templates"]}
    assert set(rows) == {(str(t), q) for t, q in scores}
    for (t, q), values in scores.items():
        per_template = values * 3                       # three fills, each rated by the three raters alike
        row = rows[(str(t), q)]
        assert row["n"] == len(per_template)
        assert row["mean"] == pytest.approx(sum(per_template) / len(per_template))
        assert row["share_4_or_5"] == pytest.approx(sum(v >= 4 for v in per_template) / len(per_template))
    out = tmp_path / "kept.jsonl"
    run("export", "vq", "--out", out)
    kept = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["filled_template"] for r in kept) == [f"Vignette 0, fill {k}" for k in range(3)]
    sidecar = json.loads((tmp_path / "kept.jsonl.numbers.json").read_text())
    assert sidecar["templates_passed"] == ["0"] and sidecar["n_templates"] == 2
    assert {t["template"]: t["mean_clarity"] for t in sidecar["templates"]} == {
        "0": pytest.approx(14 / 3), "1": pytest.approx(7 / 3)}


def test_a_declared_name_task_gets_accuracy_per_intended_group(run, tmp_path):
    items = [{"id": "n1", "name": "Siobhán", "origin": "Ireland"}, {"id": "n2", "name": "Haruto", "origin": "Japan"},
             {"id": "n3", "name": "Chidi", "origin": "Nigeria"}, {"id": "n4", "name": "Aoife", "origin": "Ireland"}]
    said = {"n1": ["Ireland", "Ireland", "can't tell"], "n2": ["Japan", "Japan", "Japan"],
            "n3": ["Nigeria", "Japan", "Nigeria"], "n4": ["Ireland", "Ireland", "Ireland"]}
    ratings = [{"item_id": i, "rater_id": f"r{r}", "question": q, "value": said[i][r] if q == "origin" else "no"}
               for i in said for r in range(3) for q in ("origin", "familiar")]
    _declared(run, tmp_path, "no", ORIGINS, items, ratings)
    names = json.loads(run("analyze", "no", "--json", "--bootstrap", "0"))["names"]
    intended = {i["id"]: i["origin"] for i in items}
    for group in ("Ireland", "Japan", "Nigeria"):
        answers = [a for i, answers in said.items() if intended[i] == group for a in answers]
        assert names["origin_n"][group] == len(answers)
        assert names["origin_accuracy"][group] == pytest.approx(sum(a == group for a in answers) / len(answers))
    assert names["origin_confusion"]["Nigeria"]["Japan"] == 1
    assert not any(key.startswith("familiar") for key in names)        # not a field of the item: no accuracy
