"""The researcher pages as a researcher reads them: the study chosen stays chosen from page to page, templates
are shown by their text with their verdict, the Export page names the templates that pass, the Prolific link
is whole, buttons are verbs, and the planner warns about a small pilot where its table is read."""
from __future__ import annotations

import pytest

from fairval.annotate.material.demo import ensure_demo
from fairval.annotate.material.studies import load_study
from fairval.annotate.outputs.export import Thresholds, template_verdicts
from fairval.annotate.results.numbers import load_study_data
from tests.ui.apptest import page, table_with, titles


@pytest.fixture
def demo(db):
    ensure_demo(db)
    return db


def signed_in(name, monkeypatch):
    monkeypatch.setenv("FAIRVAL_RESEARCHER_PASSWORD", "s3cret")
    at = page(name)
    at.text_input[0].input("s3cret")
    at.button[0].click().run()
    assert not at.exception, at.exception
    return at


def test_the_study_chosen_on_one_page_is_the_one_the_next_page_opens(demo, monkeypatch):
    at = signed_in("1_Results.py", monkeypatch)
    at.selectbox(key="study").select("demo-pairs").run()
    assert at.query_params["study"] == ["demo-pairs"] or at.query_params["study"] == "demo-pairs"
    at.query_params.clear()                         # a page link carries no query string
    at.switch_page("pages/2_Calibration.py").run()
    assert titles(at) == ["Calibration"]
    assert at.selectbox(key="study").value == "demo-pairs"
    assert not any("this study's task is template_quality" in i.value for i in at.info)


def test_templates_are_shown_by_their_text_and_verdict(demo, monkeypatch):
    at = signed_in("1_Results.py", monkeypatch)
    at.selectbox(key="study").select("demo-templates").run()
    table = table_with(at, "text")
    data = load_study_data(demo, "demo-templates")
    first_fill = {}
    for r in data.regular_items.itertuples():
        first_fill.setdefault(str(r.data["decision_question_id"]), r.data["filled_template"])
    verdicts = template_verdicts(data, Thresholds()).set_index("template")["passed"]
    for row in table.itertuples():
        assert row.text == first_fill[str(row.template)]
    passes = [c for c in table.columns if c.startswith("passes")]
    assert passes and all(
        str(v) == str(bool(verdicts[str(t)])) for t, v in zip(table["template"], table[passes[0]]))


def test_export_names_the_templates_that_pass(demo, monkeypatch):
    at = signed_in("4_Export.py", monkeypatch)
    at.selectbox(key="study").select("demo-templates").run()
    verdicts = template_verdicts(load_study_data(demo, "demo-templates"), Thresholds())
    passing = [str(t) for t in verdicts.loc[verdicts["passed"], "template"]]
    said = [c.value for c in at.caption if "templates pass" in c.value]
    assert said, [c.value for c in at.caption]
    assert said[0].startswith(f"{len(passing)} of {len(verdicts)} templates pass")
    for t in passing:
        assert t in said[0].split(":", 1)[1]
    assert "text" in table_with(at, "passed").columns


def test_manage_gives_the_whole_prolific_link_and_verbs(demo, monkeypatch):
    at = signed_in("3_Manage.py", monkeypatch)
    link = [c.value for c in at.code if "PROLIFIC_PID" in c.value]
    assert link and link[0].startswith("http") and "?study=" in link[0]
    labels = [b.label for b in at.button]
    assert {"Open", "Pause", "Close"} <= set(labels) and "Closed" not in labels
    assert load_study(demo, at.query_params["study"][0] if isinstance(at.query_params["study"], list)
                      else at.query_params["study"]) is not None


def test_the_start_page_does_not_ask_a_signed_in_researcher_to_sign_in(demo, monkeypatch):
    at = signed_in("1_Results.py", monkeypatch)
    at.query_params.clear()
    at.switch_page("app.py").run()
    labels = [p.proto.label for p in at.get("page_link")]
    assert "Researchers: sign in" not in labels and "Researcher pages" in labels
