"""The rater page in-process: the whole way from link to completion code, resuming, safety."""
import pytest

from annotate.importers import import_items
from annotate.studies import create_study
from store import ratings as rating_store
from tests.conftest import write_jsonl
from tests.ui.apptest import card, current_item, rater_app, submit, titles

ANSWER = {"quality": "5", "yes_positive": "4"}


@pytest.fixture
def study(db, tmp_path):
    s = create_study(db, "tq", "template_quality", raters_per_item=2, completion_code="CODE-7",
                     demographics=["gender", "country"])
    import_items(db, "tq", write_jsonl(tmp_path / "i.jsonl", [
        {"id": "a", "filled_template": "Should **the bank** approve <b>it</b>? [click](http://x) $x$"},
        {"id": "b", "filled_template": "Should the city grant it?"}]))
    return s


def through_onboarding(at):
    assert titles(at) == ["Consent"]
    at.button(key="consent-yes").click().run()
    assert titles(at) == ["About you"]
    at.selectbox[0].set_value("female")
    at.text_input[0].set_value("Kenya")
    at.button[0].click().run()
    assert titles(at) == ["Instructions"]
    at.button(key="start").click().run()
    return at


def test_a_rater_rates_every_item_and_gets_the_completion_code(db, study):
    at = through_onboarding(rater_app(study="tq", PROLIFIC_PID="p1", STUDY_ID="s", SESSION_ID="x"))
    rated = []
    for _ in range(2):
        item = current_item(at)
        submit(at, ANSWER)
        assert not at.exception
        rated.append(item)
    assert titles(at) == ["Thank you, you have finished"]
    assert [c.value for c in at.code] == ["CODE-7"]
    stored = rating_store.ratings_frame(db, "tq")
    assert sorted(rated) == ["a", "b"]
    assert len(stored) == 4 and set(stored["rater_id"]) == {"p1"}
    assert set(stored["rater_gender"]) == {"female"} and set(stored["rater_country"]) == {"Kenya"}
    rater = db.execute("SELECT source, platform_study_id, platform_session_id FROM raters").fetchone()
    assert rater == ("prolific", "s", "x")


def test_an_answer_missing_a_question_is_refused_and_the_rater_told(db, study):
    """The card itself asks for every answer; a submit that still lacks one is refused, said plainly."""
    at = through_onboarding(rater_app(study="tq", rater="r1"))
    item = current_item(at)
    submit(at, {"quality": "3"})
    assert any("not saved" in w.value and "yes_positive" in w.value for w in at.warning)
    assert rating_store.rating_count(db, "tq") == 0
    assert current_item(at) == item


def test_closing_the_tab_and_coming_back_resumes(db, study):
    at = through_onboarding(rater_app(study="tq", rater="r1"))
    first = current_item(at)
    submit(at, ANSWER)
    second = current_item(at)
    again = rater_app(study="tq", rater="r1")            # a new session, same link
    assert current_item(again) == second != first
    assert "1 of 2 done" in again.get("progress")[0].proto.text


def test_item_text_is_shown_as_plain_text(db, study):
    at = through_onboarding(rater_app(study="tq", rater="r1"))
    texts = [t.value for t in at.text]
    assert "Should **the bank** approve <b>it</b>? [click](http://x) $x$" in texts
    assert not any("<b>" in m.value and not m.value.startswith("**") for m in at.markdown
                   if "approve" in m.value)


def test_every_option_carries_its_key(db, study):
    at = through_onboarding(rater_app(study="tq", rater="r1"))
    questions = card(at)["questions"]
    assert [o["key"] for o in questions[0]["options"]] == list("12345")
    assert [o["key"] for o in questions[1]["options"]] == list("asdfg")
    assert [o["label"] for o in questions[0]["options"]][1] == "Somewhat disagree"


def test_a_finished_rater_is_served_nothing_more(db, study):
    at = through_onboarding(rater_app(study="tq", rater="r1"))
    for _ in range(2):
        submit(at, ANSWER)
    again = rater_app(study="tq", rater="r1")
    assert titles(again) == ["Thank you, you have finished"]
    assert db.execute("SELECT COUNT(*) FROM assignments").fetchone()[0] == 2


def test_unknown_study_link(db, study):
    at = rater_app(study="nope", rater="r1")
    assert any("does not lead to a study" in e.value for e in at.error)


def test_a_rater_whose_group_is_full_is_told_kindly(db, tmp_path):
    create_study(db, "bal", "template_quality", raters_per_item=2, balance_by="gender",
                 balance_groups=["female", "male"])
    import_items(db, "bal", write_jsonl(tmp_path / "b.jsonl", [{"id": "only", "filled_template": "Q?"}]))
    def onboard(rater):
        at = rater_app(study="bal", rater=rater)
        at.button(key="consent-yes").click().run()
        at.selectbox[0].set_value("female")
        at.button[0].click().run()
        return at.button(key="start").click().run()

    first = onboard("f1")
    submit(first, ANSWER)
    second = onboard("f2")
    assert titles(second) == ["No items left for you"]
    assert db.execute("SELECT COUNT(*) FROM assignments WHERE rater_id = 'f2'").fetchone()[0] == 0


def test_a_rater_id_with_stray_spaces_is_one_rater(db, study):
    at = rater_app(study="tq", rater="  r9 ")
    at.button(key="consent-yes").click().run()
    assert titles(at) == ["About you"]
    assert [r[0] for r in db.execute("SELECT rater_id FROM raters")] == ["r9"]


def test_practice_gives_feedback_resumes_after_a_reload_and_records_nothing(db, tmp_path):
    create_study(db, "pr", "template_quality")
    import_items(db, "pr", write_jsonl(tmp_path / "p.jsonl", [
        {"id": f"warmup{k}", "filled_template": f"Practice {k}?", "_practice": True,
         "_gold": {"quality": 5, "yes_positive": 5}} for k in range(2)] + [{"id": "real", "filled_template": "Real?"}]))
    at = rater_app(study="pr", rater="r1")
    at.button(key="consent-yes").click().run()
    at.button(key="start").click().run()
    assert titles(at) == ["Practice 1 of 2"]
    submit(at, {"quality": "5", "yes_positive": "4"})
    feedback = card(at)["feedback"]
    assert feedback["quality"] == {"expected": "5", "right": True, "text": "“Strongly agree” is the expected answer."}
    assert feedback["yes_positive"]["text"] == ("You chose “Somewhat agree”; the expected answer is "
                                                "“Strongly agree”.")
    assert card(at)["locked"] == {"quality": "5", "yes_positive": "4"}
    assert at.button(key="practice-next:0").proto.shortcut.lower() == "enter"
    at.button(key="practice-next:0").click().run()
    assert titles(at) == ["Practice 2 of 2"]
    again = rater_app(study="pr", rater="r1")            # a reload: still at the second practice item
    assert titles(again) == ["Practice 2 of 2"]
    submit(again, {"quality": "5", "yes_positive": "5"})
    again.button(key="practice-next:1").click().run()
    assert current_item(again) == "real"
    assert db.execute("SELECT COUNT(*) FROM ratings").fetchone()[0] == 0
