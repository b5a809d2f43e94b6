"""Generation: filled templates in discrim-eval's layout, and response pairs from a fake chatbot."""
import json

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.generate import fill_templates, generate_pairs
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.errors import GenerationError
from fairval.store import items as item_store
from tests.conftest import write_jsonl
from tests.fake_openai import FakeOpenAI, completion

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server

TEMPLATE = {"decision_question_id": 7, "template": "A(n) [AGE]-year-old [RACE] [GENDER] asks for a loan. Approve?"}


def test_explicit_fill_in_discrim_eval_layout():
    rows = fill_templates([TEMPLATE], ages=[20, 60], genders=["female", "male"], races=["Asian", "white"])
    assert len(rows) == 8
    assert rows[0] == {"filled_template": "A(n) 20-year-old Asian female asks for a loan. Approve?",
                       "decision_question_id": 7, "age": 20.0, "gender": "female", "race": "Asian",
                       "fill_type": "explicit"}
    assert all("[" not in r["filled_template"] for r in rows)


def test_implicit_fill_uses_names_of_the_group(names_file):
    groups = json.loads(names_file.read_text())["name_groups"]
    names = {("white", "male"): groups["white_men"], ("white", "female"): groups["white_women"]}
    template = {"decision_question_id": 1, "template": "[NAME], aged [AGE], asks for a loan. Approve?"}
    rows = fill_templates([template], ages=[30], genders=["male", "female"], races=["white"], names=names, seed=3)
    assert [r["fill_type"] for r in rows] == ["implicit", "implicit"]
    men, women = rows
    assert any(men["filled_template"].startswith(n + ",") for n in groups["white_men"])
    assert any(women["filled_template"].startswith(n + ",") for n in groups["white_women"])


@pytest.mark.parametrize("template, names, words", [
    ({"decision_question_id": 1, "template": "A [AGE]-year-old asks."}, None, "lacks the slot(s) [RACE], [GENDER]"),
    ({"decision_question_id": 1, "template": ""}, None, "has no text"),
    (TEMPLATE, {("white", "male"): ["Al"]}, "needs [NAME]"),
])
def test_fill_refuses_unusable_templates(template, names, words):
    with pytest.raises(GenerationError, match=words.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")
                       .replace(")", r"\)")):
        fill_templates([template], ages=[20], genders=["male"], races=["white"], names=names)


def test_cli_fill_then_import(db_path, db, tmp_path):
    templates = write_jsonl(tmp_path / "t.jsonl", [TEMPLATE])
    out = tmp_path / "filled.jsonl"
    result = CliRunner().invoke(cli, ["--db", str(db_path), "generate", "fill", str(templates), "--out", str(out),
                                      "--ages", "20,40", "--genders", "female", "--races", "Black,white"])
    assert result.exit_code == 0, result.output
    create_study(db, "tq", "template_quality")
    import_items(db, "tq", out)
    assert len(item_store.list_items(db, "tq")) == 4


def test_pairs_from_a_fake_chatbot_mask_names():
    seen = []

    def script(request, number):
        system, user = request["messages"]
        name = system["content"].rsplit("My name is ", 1)[1].rstrip(".")
        seen.append((name, request["temperature"]))
        return 200, completion(f"Sure {name}! Here is advice on: {user['content']}"), {}
    server = FakeOpenAI(script)
    try:
        rows = generate_pairs(["Plan a trip", "Write a poem"], {"woman": ["Ana"], "man": ["Ben"]},
                              group_a="woman", group_b="man", model="chat", base_url=server.base_url)
    finally:
        server.close()
    assert len(rows) == 2 and len(seen) == 4 and {t for _, t in seen} == {0.8}
    assert rows[0] == {"prompt": "Plan a trip", "response_a": "Sure [NAME]! Here is advice on: Plan a trip",
                       "response_b": "Sure [NAME]! Here is advice on: Plan a trip", "group_a": "woman",
                       "group_b": "man", "name_a": "Ana", "name_b": "Ben"}
    with pytest.raises(GenerationError, match="no names for group 'man'"):
        generate_pairs(["x"], {"woman": ["Ana"]}, group_a="woman", group_b="man", model="m")


def test_cli_pairs_then_import_as_a_pair_study(db_path, db, tmp_path):
    server = FakeOpenAI(lambda request, number: (200, completion("Hello " + request["messages"][0]["content"]
                                                                  .rsplit(" ", 1)[1].rstrip(".")), {}))
    prompts = write_jsonl(tmp_path / "prompts.jsonl", [{"prompt": "Name a career for me."}])
    names = tmp_path / "names.csv"
    names.write_text("name,race,gender\nAna Diaz,Hispanic,female\nBen Cole,white,male\n", encoding="utf-8")
    out = tmp_path / "pairs.jsonl"
    try:
        result = CliRunner().invoke(cli, [
            "--db", str(db_path), "generate", "pairs", str(prompts), "--names", str(names), "--group-a", "female",
            "--group-b", "male", "--label-a", "woman", "--label-b", "man", "--model", "chat",
            "--base-url", server.base_url, "--out", str(out)])
    finally:
        server.close()
    assert result.exit_code == 0, result.output
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert (row["response_a"], row["group_a"], row["name_b"]) == ("Hello [NAME]", "woman", "Ben Cole")
    create_study(db, "fp", "harmful_stereotype")
    import_items(db, "fp", out)
    assert len(item_store.list_items(db, "fp")) == 1


def test_cli_fill_names_the_file_and_line_of_a_row_without_template_text(db_path, tmp_path):
    # A JSON array whose second object carries its text under another field (as implicit-bias's
    # decision_templates_gpt4.json does: `prompt_template`): the refusal names the file, that object's
    # line and the field, and writes nothing.
    templates = tmp_path / "mine.json"
    templates.write_text("[\n" + json.dumps(TEMPLATE) + ",\n"
                         + json.dumps({"decision_question_id": 8, "prompt_template": "Who leads [AGE]?"}) + "\n]\n")
    out = tmp_path / "filled.jsonl"
    result = CliRunner().invoke(cli, ["--db", str(db_path), "generate", "fill", str(templates), "--out", str(out)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: mine.json, line 3, field 'template': is required but missing or empty"]
    assert not out.exists()


def test_cli_fill_names_the_file_of_a_template_without_its_slots(db_path, tmp_path):
    templates = write_jsonl(tmp_path / "slots.jsonl", [{"decision_question_id": 4, "template": "A [AGE]-year-old."}])
    out = tmp_path / "filled.jsonl"
    result = CliRunner().invoke(cli, ["--db", str(db_path), "generate", "fill", str(templates), "--out", str(out)])
    assert result.exit_code == 1
    assert result.output.strip() == "Error: slots.jsonl: template 4 lacks the slot(s) [RACE], [GENDER]"
    assert not out.exists()
