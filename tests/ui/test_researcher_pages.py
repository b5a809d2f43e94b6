"""Researcher pages refuse on their own without the password, and show the numbers with it."""
import json
import re

import pytest

from fairval.annotate.material.demo import ensure_demo
from tests.ui.apptest import page, plain, rater_app, shown, signed_in, table_with, titles

PAGES = ["1_Results.py", "2_Calibration.py", "3_Manage.py", "4_Export.py"]


@pytest.fixture
def demo(db):
    ensure_demo(db)
    return db


@pytest.mark.parametrize("name", PAGES)
def test_every_page_is_locked_without_a_configured_password(demo, monkeypatch, name):
    monkeypatch.delenv("FAIRVAL_RESEARCHER_PASSWORD", raising=False)
    at = page(name)
    assert any("locked" in e.value for e in at.error)
    assert not at.dataframe and not at.metric


@pytest.mark.parametrize("name", PAGES)
def test_every_page_asks_for_the_password_and_refuses_a_wrong_one(demo, monkeypatch, name):
    monkeypatch.setenv("FAIRVAL_RESEARCHER_PASSWORD", "s3cret")
    at = page(name)
    assert titles(at) == ["Researcher sign-in"]
    assert not at.dataframe and not at.metric
    at.text_input[0].input("wrong")
    at.button[0].click().run()
    assert any("not right" in e.value for e in at.error)
    assert not at.dataframe and not at.metric


sign_in = signed_in


def test_results_page_shows_progress_and_numbers(demo, monkeypatch):
    at = sign_in("1_Results.py", monkeypatch)
    assert titles(at) == ["Results"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Items complete"] == "0 / 12"
    assert metrics["Judgments"] == "16 / 60"                  # 2 pretend raters × 8 items of 12 × 5 raters
    table = table_with(at, "question")
    assert list(table["question"]) == ["quality", "yes_positive"]
    assert set(table["n"]) == {16}
    templates = next(t for t in at.dataframe if "text" in shown(t).columns)      # Per template, with its text
    assert max(len(t) for t in shown(templates)["text"]) > 28      # longer than the narrow column's one line
    assert templates.proto.row_height > 64                          # so wrapped, not cut at ~30 characters


def test_a_rater_link_never_reaches_results(demo, monkeypatch):
    monkeypatch.setenv("FAIRVAL_RESEARCHER_PASSWORD", "s3cret")
    at = rater_app(study="demo-templates", rater="r1", page="Results", results="1")
    assert titles(at) == ["Consent"]
    assert not at.dataframe and not at.metric
    assert not any("Results" in str(getattr(e, "label", "")) for e in at.get("page_link"))


def test_calibration_page_shows_table_1_numbers(demo, monkeypatch):
    at = sign_in("2_Calibration.py", monkeypatch)
    at.selectbox(key="study").set_value("demo-pairs").run()
    from fairval.annotate.results.numbers import study_numbers
    expected = study_numbers(demo, "demo-pairs").to_dict()["lmra"]
    tables = {tuple(shown(t).columns)[:2]: shown(t) for t in at.dataframe}
    main = tables[("judge", "r")]                  # one table: r with its interval and p, then the rest
    assert len(main) == 1 and main.iloc[0]["judge"] == "demo-judge"
    assert main.iloc[0]["r"] == f"{expected['pearson_r']:.3f}"
    assert main.iloc[0]["95% CI"] == "[{:.3f}, {:.3f}]".format(*expected["pearson_ci"])
    low, high = expected["sign_agreement_ci"]
    assert main.iloc[0]["sign agreement"] == f"{expected['sign_agreement']:.3f} [{low:.3f}, {high:.3f}]"
    spearman = expected["spearman"]
    assert main.iloc[0]["Spearman"] == (f"{spearman['value']:.3f} [{spearman['ci'][0]:.3f}, {spearman['ci'][1]:.3f}]")
    assert main.iloc[0]["CCC"].startswith(f"{expected['ccc']['value']:.3f} [")
    assert not any("ρ" in c for t in at.dataframe for c in shown(t).columns)   # ρ is Spearman's letter, not Pearson's
    said = " ".join(plain(m.value) for m in at.markdown)                # what a reader needs: plain sentences
    assert f"People agree with each other at {expected['human_ceiling']['split_half']:.3f}" in said
    assert f"the judge's Pearson r = {expected['pearson_r']:.3f}" in said and "ρ" not in said
    details = " ".join(plain(c.value) for c in at.expander[0].caption)   # the rest, in the expander
    assert "Alternative-annotator test: undefined" in details and "Response 1" in details
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "ppi.reason" not in captions and "at least 2 and 1" not in captions and "p_a" not in captions
    groups = tables[("raters", "r")]
    assert list(groups["raters"]) == ["gender: female", "gender: male"]
    by_pair = next(t for t in at.dataframe if "note" in shown(t).columns)       # By group pair, with its note
    assert max(len(n) for n in shown(by_pair)["note"]) > 28 and by_pair.proto.row_height > 64   # wrapped, not cut
    # and whole: as many 20 px lines as the longest note takes, greedily by words at 26 characters (a 200 px
    # column); a fixed three-line row cut its 160 characters at the fourth line
    assert by_pair.proto.row_height >= 16 + 20 * max(_lines(n, 26) for n in shown(by_pair)["note"]) > 66
    worst = tables[("item", "groups")]                       # readable names, not identifiers
    assert len(worst) == 8 and list(worst.columns[:3]) == ["item", "groups", "human"]
    assert all(" vs " in g for g in worst["groups"])
    responses = tables[("item", "response a")]               # the pairs' responses, in an expander
    assert list(responses["item"]) == list(worst["item"])
    assert not any("_" in str(c) for t in at.dataframe for c in shown(t).columns)


def test_calibration_page_on_a_pair_study_without_judge_scores_says_to_import_them(demo, monkeypatch):
    """demo-features is a pair study no judge has scored yet: the page asks for the scores (it said, before
    the numbers were typed, that calibration is for pair studies, naming this pair study's task)."""
    at = sign_in("2_Calibration.py", monkeypatch)
    at.selectbox(key="study").set_value("demo-features").run()
    said = [plain(i.value) for i in at.info]
    assert said == ["No LMRA scores yet: import them with `fairval lmra import STUDY FILE`."], said
    assert not at.dataframe


def test_calibration_page_with_two_judges_shows_the_chosen_judges_own_h(demo, monkeypatch):
    """With a second judge, the page reads each judge's H numbers from lmra.by_model.<judge>.rate (the
    main judge's live only in `harm`): choosing the other judge shows its H, interval and difference."""
    from fairval.annotate.material.importers import import_lmra
    from fairval.annotate.outputs.judge_table import with_ci
    from fairval.annotate.results.numbers import study_numbers
    from fairval.store import items as item_store

    pairs = [i["item_id"] for i in item_store.list_items(demo, "demo-pairs") if not i["practice"] and not i["gold"]]
    import_lmra(demo, "demo-pairs", [{"item_id": item, "model": "other-judge", "score": (-1) ** k * 0.25 * (k % 4)}
                                     for k, item in enumerate(pairs)])
    numbers = study_numbers(demo, "demo-pairs").to_dict()
    assert "rate" not in numbers["lmra"] and set(numbers["lmra"]["by_model"]) == {"demo-judge", "other-judge"}
    other = numbers["lmra"]["by_model"]["other-judge"]["rate"]
    assert other["lmra"] == pytest.approx(sum((-1) ** k * 0.25 * (k % 4) for k in range(len(pairs))) / len(pairs))
    at = sign_in("2_Calibration.py", monkeypatch)
    at.selectbox(key="study").set_value("demo-pairs").run()
    next(s for s in at.selectbox if s.label == "Judge model").set_value("other-judge").run()
    assert not at.exception
    said = " ".join(plain(m.value) for m in at.markdown)
    assert f"LMRA {with_ci(other['lmra'], other['lmra_ci'])} over {len(pairs)} pairs" in said
    difference = other["difference"]
    assert f"humans − LMRA {with_ci(difference['value'], difference['ci'])}" in said
    judges = next(shown(t) for t in at.dataframe if "r" in shown(t).columns)    # both judges, in one table
    assert list(judges["judge"]) == ["demo-judge", "other-judge"]


def test_manage_page_creates_a_study_that_waits_for_items(demo, monkeypatch):
    at = sign_in("3_Manage.py", monkeypatch)
    at.text_input[0].input("new-study")
    at.selectbox[0].set_value("name_perception")
    at.button[0].click().run()                       # the form's submit: the first button on the page
    assert not at.exception
    assert any("Created study 'new-study'" in s.value for s in at.success)
    from fairval.annotate.material.studies import load_study
    assert load_study(demo, "new-study").task.name == "name_perception"
    assert load_study(demo, "new-study").status == "paused"          # nothing to rate yet
    at.selectbox(key="manage-study").set_value("new-study").run()
    at.button(key="status-open").click().run()
    assert not at.exception
    assert any("no items to rate yet" in e.value for e in at.error)
    assert load_study(demo, "new-study").status == "paused"


def test_manage_page_pauses_an_open_study(demo, monkeypatch):
    at = sign_in("3_Manage.py", monkeypatch)
    at.selectbox(key="manage-study").set_value("demo-templates").run()
    at.button(key="status-paused").click().run()
    from fairval.annotate.material.studies import load_study
    assert load_study(demo, "demo-templates").status == "paused"


def test_export_page_offers_every_download(demo, monkeypatch):
    at = sign_in("4_Export.py", monkeypatch)
    labels = [b.label for b in at.get("download_button")]
    for label in ("Validated set (.jsonl)", "Validated set (.csv)", "Ratings (.csv)", "Ratings (.parquet)",
                  "Report (.html)", "Report (.md)", "Numbers (JSON sidecar)"):
        assert label in labels


def test_export_page_shows_which_templates_pass(demo, monkeypatch):
    at = sign_in("4_Export.py", monkeypatch)
    table = table_with(at, "template")
    from fairval.annotate.outputs.export import Thresholds, template_verdicts
    from fairval.annotate.results.numbers import load_study_data
    expected = template_verdicts(load_study_data(demo, "demo-templates"), Thresholds())
    assert list(table["template"]) == list(expected["template"])
    assert list(table["passed"]) == list(expected["passed"])
    assert any(f"{int(expected['passed'].sum())} of 4 templates pass" in plain(c.value) for c in at.caption)
    assert all(re.fullmatch(r"\d\.\d\d|–", m) for m in table["mean quality"])    # two decimals, as on Results


def test_export_page_offers_no_empty_validated_set(demo, monkeypatch):
    at = sign_in("4_Export.py", monkeypatch)
    at.number_input[0].set_value(5.0).run()
    at.number_input[1].set_value(5.0).run()
    labels = [b.label for b in at.get("download_button")]
    assert not any(label.startswith("Validated set") for label in labels) and "Numbers (JSON sidecar)" in labels
    assert any("would be empty" in plain(i.value) for i in at.info)


def test_the_page_prints_the_interval_the_command_line_prints(demo, monkeypatch, db_path):
    """Same data, same settings: the Results page and `fairval analyze` give one interval."""
    from click.testing import CliRunner

    from fairval.annotate.cli.main import cli
    at = sign_in("1_Results.py", monkeypatch)
    questions = table_with(at, "question")
    on_page = dict(zip(questions["question"], questions["alpha 95% CI"]))
    result = CliRunner().invoke(cli, ["--db", str(db_path), "analyze", "demo-templates", "--json"])
    from_cli = json.loads(result.output)["questions"]
    assert on_page == {q: f"[{v['alpha_ci'][0]:.3f}, {v['alpha_ci'][1]:.3f}]" for q, v in from_cli.items()}


def test_numbers_are_printed_by_kind(demo, monkeypatch):
    """Means of answers with two decimals, ratios with three; the attribute nobody was asked is not listed."""
    at = sign_in("1_Results.py", monkeypatch)
    questions = table_with(at, "question").set_index("question")
    assert re.fullmatch(r"\d\.\d\d", questions.loc["quality", "mean"])
    assert re.fullmatch(r"0\.\d{3}|1\.000", questions.loc["quality", "share 4–5"])
    templates = table_with(at, "template")
    assert all(re.fullmatch(r"\d\.\d\d", m) for m in templates["mean"])
    assert not any("not asked" in plain(c.value) for c in at.caption)


def test_export_page_asks_for_template_thresholds_only_on_template_studies(demo, monkeypatch):
    at = sign_in("4_Export.py", monkeypatch)
    assert [n.label for n in at.number_input][:1] == ["Mean quality at least"]
    at.selectbox(key="study").set_value("demo-pairs").run()
    assert not at.number_input and not at.dataframe
    assert any("groups" in plain(c.value) for c in at.caption)


def test_results_page_shows_what_each_participant_is_owed(demo, monkeypatch):
    from fairval.annotate.material.studies import configure_study
    configure_study(demo, "demo-templates", base_pay=1.15, pay_per_judgment=0.5)
    at = sign_in("1_Results.py", monkeypatch)
    metrics = {m.label: m.value for m in at.metric}
    judgments = demo.execute("SELECT COUNT(DISTINCT item_id || '/' || rater_id) FROM ratings "
                             "WHERE study_id = 'demo-templates'").fetchone()[0]
    raters = demo.execute("SELECT COUNT(DISTINCT rater_id) FROM ratings WHERE study_id = 'demo-templates'").fetchone()[0]
    pay = raters * 1.15 + judgments * 0.5
    assert metrics["Pay (USD)"] == f"{pay:.2f}"
    assert metrics["Platform fee (43%)"] == f"{pay * 0.43:.2f}" and metrics["Total"] == f"{pay * 1.43:.2f}"
    owed = next(shown(t) for t in at.dataframe if "bonus owed" in shown(t).columns)
    assert len(owed) == raters


def test_manage_page_plans_a_study_without_a_pilot_from_assumed_values(demo, monkeypatch, tmp_path):
    from fairval.analysis.planner import Assumptions, Pay, cheapest
    from fairval.annotate.judge.planning import plan_from_assumptions
    from fairval.annotate.material.importers import import_items
    from fairval.annotate.material.studies import create_study
    from tests.conftest import write_jsonl
    create_study(demo, "fresh", "harmful_stereotype")
    import_items(demo, "fresh", write_jsonl(tmp_path / "p.jsonl", [
        {"id": f"p{k}", "prompt": "P", "response_a": "a", "response_b": "b", "group_a": "w", "group_b": "m"}
        for k in range(5)]))
    at = sign_in("3_Manage.py", monkeypatch)
    at.selectbox(key="plan-study").set_value("fresh").run()
    assert any("No pilot to resample yet" in i.value for i in at.info)
    assert at.toggle(key="plan-assume").value is True
    at.number_input(key="plan-rho").set_value(0.5).run()
    at.number_input(key="plan-alpha").set_value(0.25).run()
    best = cheapest(plan_from_assumptions(Assumptions(0.5, 0.25, 0.8, 0.0)).designs, "rho", 0.2, Pay())
    said = [s.value for s in at.success]
    assert said and said[0].startswith(f"Cheapest: {best.pairs} pairs × {best.raters_per_pair} rater")
    assert f"{best.cost:.2f} USD with the fee" in said[0]
    assert any("simulated from assumed values" in c.value and "0.5" in plain(c.value) for c in at.caption)


def test_manage_page_plans_the_crowd_study_like_the_command_line(demo, monkeypatch):
    from fairval.analysis.planner import Pay, cheapest
    from fairval.annotate.judge.planning import plan_study
    at = sign_in("3_Manage.py", monkeypatch)
    at.selectbox(key="plan-study").set_value("demo-pairs").run()
    best = cheapest(plan_study(demo, "demo-pairs").designs, "rho", 0.2, Pay())
    said = [s.value for s in at.success]
    assert said and said[0].startswith(f"Cheapest: {best.pairs} pairs × {best.raters_per_pair} rater")
    assert f"{best.cost:.2f} USD with the fee" in said[0]
    at.selectbox(key="plan-study").set_value("demo-templates").run()
    assert any("pair study" in i.value for i in at.info)


@pytest.mark.parametrize("name", ["1_Results.py", "2_Calibration.py", "4_Export.py"])
def test_a_link_to_a_study_that_does_not_exist_says_so_and_shows_no_other_study(demo, monkeypatch, name):
    at = sign_in(name, monkeypatch)
    at.query_params["study"] = "no-such-study"
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == ["There is no study named “no\\-such\\-study” in this database. "
                                           "Choose one below."]
    assert not at.dataframe and not at.metric                 # nothing of demo-templates or demo-pairs
    at.selectbox[0].select("demo-templates").run()
    assert not at.error and at.query_params["study"] in ("demo-templates", ["demo-templates"])


@pytest.mark.parametrize("field, value, said", [
    ("create-rpi", 0, "raters_per_item must be a whole number of at least 1, not 0"),
    ("create-flip", 1.5, "flip_probability must lie between 0 and 1, not 1.5"),
    ("create-groups", "female,male", "balance_groups needs balance_by"),
])
def test_manage_create_refuses_out_of_range_settings_in_words(demo, monkeypatch, field, value, said):
    """A value out of range is typed (the inputs have no bounds to turn red): Create says why, creates
    nothing, and a study with right values is created from the same form."""
    at = sign_in("3_Manage.py", monkeypatch)
    at.text_input[0].input("refused")
    widget = at.text_input(key=field) if field == "create-groups" else at.number_input(key=field)
    widget.set_value(value)
    at.button[0].click().run()
    assert not at.exception
    assert any(said in plain(e.value) for e in at.error), [e.value for e in at.error]
    from fairval.annotate.material.studies import list_study_names
    assert "refused" not in list_study_names(demo)


def test_results_page_says_where_h_lies_however_often_one_looks_and_how_far_the_target_is(demo, monkeypatch):
    from fairval.annotate.material.studies import configure_study
    from fairval.annotate.outputs import formats
    from fairval.annotate.results.numbers import study_numbers

    configure_study(demo, "demo-pairs", raters_per_item=4)      # the demo's 4 raters complete every pair
    at = sign_in("1_Results.py", monkeypatch)
    at.selectbox(key="study").set_value("demo-pairs").run()
    cs = study_numbers(demo, "demo-pairs").to_dict()["harm"]["ppi"]["cs"]
    said = " ".join(m.value for m in at.markdown)
    low, high = (formats.ratio(v) for v in cs["ci"])
    assert f"H is between {low} and {high}, valid however often you look" in said
    assert any(f"What it guarantees: {cs['valid']}" in c.value for c in at.caption)   # exact or asymptotic, for what
    assert "target_ci_width=0.05" in said                      # no target yet: how to set one
    configure_study(demo, "demo-pairs", target_ci_width=0.05)
    import streamlit as st
    st.cache_data.clear()                                      # the page caches numbers for a minute
    at.run()
    numbers = study_numbers(demo, "demo-pairs").to_dict()["harm"]
    cs = numbers["ppi"]["cs"]
    said = " ".join(m.value for m in at.markdown)
    # every judged pair of the demo is complete: no more pairs can narrow H over them, and the page says so
    assert cs["n_pairs_complete"] == numbers["n_items_lmra"] and cs["more_pairs"] is None
    assert "the target width 0.05 is out of reach" in said


def test_manage_sets_and_clears_the_target_width_and_refuses_one_out_of_range(demo, monkeypatch):
    from fairval.annotate.material.studies import load_study

    at = sign_in("3_Manage.py", monkeypatch)
    at.selectbox(key="manage-study").set_value("demo-pairs").run()
    field = "cfg-demo-pairs-target"
    for typed, stored in ((0.05, 0.05), (0.0, None)):
        at.number_input(key=field).set_value(typed)
        at.button(key="FormSubmitter:configure-demo-pairs-Save settings").click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        assert load_study(demo, "demo-pairs").settings.target_ci_width == stored
    at.number_input(key=field).set_value(3.0)
    at.button(key="FormSubmitter:configure-demo-pairs-Save settings").click().run()
    assert any("target_ci_width must be a width between 0 and 2" in plain(e.value) for e in at.error)
    assert load_study(demo, "demo-pairs").settings.target_ci_width is None


def test_manage_page_creates_a_study_in_the_raters_language(demo, monkeypatch):
    at = sign_in("3_Manage.py", monkeypatch)
    at.text_input[0].input("arabic-study")
    at.selectbox[0].set_value("harmful_stereotype")
    at.selectbox(key="create-language").set_value("ar")
    at.button[0].click().run()
    assert not at.exception
    from fairval.annotate.material.studies import load_study
    assert load_study(demo, "arabic-study").settings.language == "ar"


@pytest.mark.parametrize("task", ["template_quality", "name_perception", "harmful_stereotype"])
def test_manage_create_shows_the_chosen_tasks_own_consent(demo, monkeypatch, task):
    """The Create form pre-fills the consent the study will get: a template or name study's raters are not
    told that stereotypes are looked for (issue 54)."""
    from fairval.annotate.material.study_settings import DEFAULT_CONSENT, NEUTRAL_CONSENT, default_consent
    at = sign_in("3_Manage.py", monkeypatch)
    at.selectbox(key="create-task").set_value(task).run()
    assert not at.exception
    consent = next(a.value for a in at.text_area if a.label == "Consent text")
    assert consent == default_consent(task)
    assert ("stereotypes" in consent) == (task == "harmful_stereotype")
    assert {DEFAULT_CONSENT, NEUTRAL_CONSENT} >= {consent}



def test_manage_shows_the_timeout_in_minutes_as_a_person_reads_them(demo, monkeypatch):
    """Manage's settings showed "Timeout (seconds)" as 1800.00: it reads "Timeout (minutes)" 30, with no
    decimals a whole number does not have, and what is typed there is stored in seconds."""
    at = sign_in("3_Manage.py", monkeypatch)
    timeout = at.number_input(key="create-timeout")
    assert timeout.label == "Timeout (minutes)" and timeout.value == 30 and timeout.proto.format == "%g"
    assert at.number_input(key="create-min").proto.format == "%g"
    at.text_input[0].input("minutes")
    timeout.set_value(1.5)
    at.button[0].click().run()
    assert not at.exception
    from fairval.annotate.material.studies import load_study
    assert load_study(demo, "minutes").settings.timeout_seconds == 90


def _lines(text: str, width: int) -> int:
    """Lines a greedy word wrap at `width` characters takes (a word longer than a line takes its own lines)."""
    lines, length = 0, width + 1
    for word in text.split():
        if length + 1 + len(word) <= width:
            length += 1 + len(word)
        else:
            lines += -(-len(word) // width)
            length = len(word) if len(word) <= width else len(word) % width or width
    return lines
