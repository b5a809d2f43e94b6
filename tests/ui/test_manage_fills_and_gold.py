"""The Manage page says, before launch, how many raters the no-two-fills rule needs for a study of unequal
templates (discrim-eval's 15/10 layout: 3 x (15 - 10) = 15), and that gold items sit unused at a gold rate
of 0; Results counts the checks each rater met (issue 54)."""
import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import configure_study, create_study
from tests.conftest import write_jsonl
from tests.ui.apptest import plain
from tests.ui.apptest import signed_in as sign_in


@pytest.fixture
def study(db, discrim_eval, tmp_path):
    create_study(db, "de", "template_quality", raters_per_item=3)
    for path in discrim_eval:
        import_items(db, "de", path)
    import_items(db, "de", write_jsonl(tmp_path / "gold.jsonl", [
        {"id": "check", "filled_template": "Please answer 1 to both.", "_gold": {"quality": 1, "yes_positive": 1}}]))
    return db


def test_manage_says_the_raters_needed_and_the_unused_checks(study, monkeypatch):
    at = sign_in("3_Manage.py", monkeypatch)
    at.selectbox(key="manage-study").set_value("de").run()
    said = [plain(m.value) for m in [*at.info, *at.warning]]
    assert any("Raters needed: 15 for 3 rating(s) of each fill" in s and "each is served 5 items" in s
               for s in said), said
    assert any("1 gold item" in s and "gold rate of 0" in s for s in said), said
    configure_study(study, "de", gold_rate=0.2, fills_back_to_back=True)
    at.run()
    said = [plain(m.value) for m in [*at.info, *at.warning]]
    assert any("Raters needed: 3 for 3 rating(s)" in s for s in said), said
    assert not any("gold rate of 0" in s for s in said), said


def test_results_counts_the_checks_each_rater_met(study, monkeypatch):
    from fairval.annotate.material.studies import load_study
    from fairval.annotate.rating import session
    at = sign_in("1_Results.py", monkeypatch)
    at.selectbox[0].set_value("de").run()
    assert any("none served (gold rate 0)" in plain(w.value) for w in at.warning)
    configure_study(study, "de", gold_rate=0.25)
    s = load_study(study, "de")
    met = {}
    for rater in ("ann", "bo"):
        session.arrive(study, "de", rater, source="link")
        session.give_consent(study, "de", rater, True)
        session.finish_instructions(study, "de", rater)
        met[rater] = 0
        for _ in range(5):
            served = session.serve_next_item(study, s, rater)
            met[rater] += served.gold
            session.record_answer(study, s, rater, served.item_id, {"quality": "4", "yes_positive": "4"})
    assert met == {"ann": 1, "bo": 1}             # the 4th item of each is the check (rate 1/4)
    import streamlit as st
    st.cache_data.clear()                         # the page caches a study's numbers for a while
    at = sign_in("1_Results.py", monkeypatch)
    at.selectbox[0].set_value("de").run()
    assert any("checks met per rater: ann 1, bo 1" in plain(c.value) for c in at.caption), \
        [c.value for c in at.caption]
    # the raters table counts the same thing: items met, not the check's two answers (quality, yes_positive)
    from tests.ui.apptest import shown
    table = next(shown(t) for t in at.dataframe if "checks" in shown(t).columns)
    assert dict(zip(table["rater"], table["checks"].astype(int))) == met


def test_after_create_the_tabs_speak_of_the_new_study_not_the_one_picked_before(study, monkeypatch):
    """QA stop 62, item 4: "Created study 'fresh'." was followed by the raters another study (the one picked
    in Configure) needs. The tabs now show the new study, which has no templates yet: nothing to say."""
    at = sign_in("3_Manage.py", monkeypatch)
    at.selectbox(key="manage-study").set_value("de").run()
    said = [plain(m.value) for m in [*at.info, *at.warning]]
    # the largest template's 15 fills against the other templates' 10 together, not "the others" each
    assert any("than of the other templates together (10)" in s for s in said), said
    at.text_input[0].input("fresh")
    at.button(key="FormSubmitter:create-study-Create study").click().run()
    assert [s.value for s in at.success] == ["Created study 'fresh'."]
    said = [plain(m.value) for m in [*at.info, *at.warning]]
    assert not any("Raters needed" in s for s in said), said
    assert {at.selectbox(key=k).value for k in ("manage-study", "import-study", "plan-study")} == {"fresh"}


def test_a_long_flag_wraps_in_the_raters_table_rather_than_being_cut(study, monkeypatch):
    """QA stop 62: at 1280 px the flags column (200 px) cut "gold accuracy 0% below 75% (0 of 2)". Rows over
    4rem are the ones Streamlit's grid wraps text in (its DataFrame component, rowHeight > 4rem)."""
    from fairval.annotate.material.studies import load_study
    from fairval.annotate.rating import session
    configure_study(study, "de", gold_rate=0.25)
    s = load_study(study, "de")
    session.arrive(study, "de", "ann", source="link")
    session.give_consent(study, "de", "ann", True)
    session.finish_instructions(study, "de", "ann")
    for _ in range(5):
        served = session.serve_next_item(study, s, "ann")
        session.record_answer(study, s, "ann", served.item_id, {"quality": "4", "yes_positive": "4"})
    import streamlit as st
    st.cache_data.clear()
    at = sign_in("1_Results.py", monkeypatch)
    at.selectbox[0].set_value("de").run()
    from tests.ui.apptest import shown
    table = next(t for t in at.dataframe if "flags" in shown(t).columns)
    assert max(len(f) for f in shown(table)["flags"]) > 28          # longer than the column's one line
    assert table.proto.row_height > 64


def test_manage_names_the_setting_that_lets_every_rater_take_more_as_its_configure_tab_labels_it(
        db, tmp_path, monkeypatch):
    """discrim-eval's layout with templates of 15 and 3 fills and one rating each: 12 raters, 9 of whom would
    rate a single item. The Plan and Configure tabs showed the CLI's command in literal backticks there
    (stop 65); a page names the checkbox the researcher ticks, as the per-rater cap is named already."""
    import json

    from tests.conftest import discrim_eval_rows
    create_study(db, "de", "template_quality", raters_per_item=1)
    for question, count in ((3, 15), (41, 3)):
        path = tmp_path / f"explicit_q{question}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in discrim_eval_rows(question, 30.0, count)),
                        encoding="utf-8")
        import_items(db, "de", path)
    at = sign_in("3_Manage.py", monkeypatch)
    at.selectbox(key="manage-study").set_value("de").run()
    assert not at.exception, at.exception
    said = [plain(m.value) for m in [*at.info, *at.warning]]
    fills = [s for s in said if s.startswith("Raters needed: 12 for 1 rating(s) of each fill")]
    assert len(fills) == 2, said                                    # Configure's notice and the Plan tab's
    assert all("9 of them would rate a single item. Allow two fills of one template in a row (Manage, "
               "Configure) and 1 rater(s) can rate every item" in s for s in fills), fills
    assert not any("`" in s or "fills_back_to_back" in s for s in said), said
    assert any(box.label.startswith("Allow two fills of one template in a row") for box in at.checkbox)
