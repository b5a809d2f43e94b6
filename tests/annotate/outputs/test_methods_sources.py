"""The methods paragraph claims fairval's serving rules only for the ratings fairval served (QA walk 62): a
study of imported ratings (`ratings import`, the store's source 'import') says so and claims no raters per item
and no template rule; a mixed one says how many of each; `study show` states the template rule only where
templates exist; the report's Methods heading is plain text."""
from __future__ import annotations

import json

from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.importers import derive_item_id, import_items, import_ratings
from fairval.annotate.material.studies import create_study, load_study
from fairval.annotate.outputs.methods import methods_text
from fairval.annotate.rating import session
from tests.conftest import write_discrim_eval, write_jsonl

RULE = "two fills of one template"


def _study(db, tmp_path, external: int) -> list[dict]:
    """A template study of the project's discrim-eval files (two templates) with `external` raters' ratings of
    the first two items imported."""
    create_study(db, "tq", "template_quality", raters_per_item=3, seed=2)
    rows = []
    for path in write_discrim_eval(tmp_path / "items"):
        import_items(db, "tq", path)
        rows += [json.loads(line) for line in path.read_text().splitlines()]
    ratings = [{"item_id": derive_item_id(row), "rater_id": f"ext{k}", "question": q, "value": 4}
               for row in rows[:2] for k in range(external) for q in ("quality", "yes_positive")]
    if ratings:
        import_ratings(db, "tq", write_jsonl(tmp_path / "r.jsonl", ratings))
    return rows


def test_a_study_of_imported_ratings_claims_no_serving_rule(db, tmp_path):
    _study(db, tmp_path, external=2)
    text, _ = methods_text(db, "tq")
    assert "8 ratings from 2 raters" in text                      # 2 items x 2 raters x 2 questions
    assert "All 8 of the study's stored ratings were imported" in text
    assert f"No rater was served {RULE}" not in text and "3 raters per item" not in text


def test_a_mixed_study_says_which_were_served_and_which_imported(db, tmp_path):
    _study(db, tmp_path, external=1)
    study = load_study(db, "tq")
    session.arrive(db, "tq", "here", source="link")
    session.give_consent(db, "tq", "here", True)
    session.finish_instructions(db, "tq", "here")
    assert session.next_step(db, study, "here", now=1.0) == "item"
    served = session.serve_next_item(db, study, "here", now=2.0)
    session.record_answer(db, study, "here", served.item_id, {"quality": "4", "yes_positive": "5"}, now=3.0)
    text, _ = methods_text(db, "tq")
    assert "Of the study's 6 stored ratings, fairval served 2 and 4 were imported" in text
    assert "3 raters per item" in text and f"No rater was served {RULE}" in text


def test_study_show_states_the_template_rule_only_where_templates_exist(db, db_path, tmp_path):
    _study(db, tmp_path, external=0)
    create_study(db, "names", "name_perception", raters_per_item=3, seed=2)
    show = {name: CliRunner().invoke(cli, ["--db", str(db_path), "study", "show", name]) for name in ("tq", "names")}
    assert all(r.exit_code == 0 for r in show.values()), {n: r.output for n, r in show.items()}
    assert f"no rater gets {RULE} in a row" in show["tq"].output
    assert "order: seeded random" in show["names"].output and RULE not in show["names"].output


def test_the_reports_methods_heading_has_no_markdown_backticks(db, db_path, tmp_path):
    _study(db, tmp_path, external=2)
    out = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["--db", str(db_path), "report", "tq", "--out", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert "fairval report --methods writes it" in page and "`fairval report" not in page
    assert "were imported" in page and f"No rater was served {RULE}" not in page



def _pairs_with_a_check(db, tmp_path, practice: bool = False) -> int:
    """13 pairs, 3 raters each, one rater's answer to an attention check (and to a practice pair), all imported;
    returns the ratings the numbers count."""
    create_study(db, "pairs", "harmful_stereotype", raters_per_item=3, seed=2)
    pair = {"response_a": "Take the bus.", "response_b": "Take a taxi.", "group_a": "woman", "group_b": "man"}
    items = [{"id": f"p{k}", "prompt": f"How do I get to the airport from stop {k}?", **pair} for k in range(13)]
    items.append({"id": "check", "prompt": "This is an attention check: choose the last option.", **pair,
                  "_gold": {"harm": "C"}})
    items += [{"id": "warmup", "prompt": "Practice: which bus goes to the station?", **pair, "_practice": True,
               "_gold": {"harm": "C"}}] if practice else []
    import_items(db, "pairs", write_jsonl(tmp_path / "pairs.jsonl", items))
    rated = [{"item_id": f"p{k}", "rater_id": f"r{j}", "question": "harm", "value": "ABC"[(k + j) % 3]}
             for k in range(13) for j in range(3)]
    rated += [{"item_id": item, "rater_id": "r0", "question": "harm", "value": "C"}
              for item in ["check"] + (["warmup"] if practice else [])]
    import_ratings(db, "pairs", write_jsonl(tmp_path / "ratings.jsonl", rated))
    return 13 * 3                                                 # the real pairs' ratings; the check's is not


def test_the_stored_total_says_what_the_ratings_counted_above_leave_out(db, tmp_path, cli_output):
    """The report said "39 ratings" and then "All 40 of the study's stored ratings" with nothing between (QA,
    stop 65): the attention check's answer is stored but not counted."""
    counted = _pairs_with_a_check(db, tmp_path)
    assert json.loads(cli_output("analyze", "pairs", "--json"))["n_ratings"] == counted
    text, _ = methods_text(db, "pairs")
    assert f"{counted} ratings from 3 raters" in text
    assert (f"All {counted + 1} of the study's stored ratings (the {counted} above and 1 answer to an attention "
            "check) were imported") in text


def test_the_stored_total_names_each_kind_left_out(db, tmp_path):
    counted = _pairs_with_a_check(db, tmp_path, practice=True)
    text, _ = methods_text(db, "pairs")
    assert (f"All {counted + 2} of the study's stored ratings (the {counted} above, 1 answer to an attention check "
            "and 1 practice answer) were imported") in text
