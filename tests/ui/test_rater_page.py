"""The rater page in-process: the whole way from link to completion code, resuming, safety."""
from urllib.parse import parse_qsl

import pytest
from streamlit.testing.v1 import AppTest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.errors import StudyError
from fairval.store import ratings as rating_store
from fairval.ui import auth
from tests.conftest import ROOT, write_jsonl
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
    at.radio[0].set_value("female")
    at.text_input(key="country").set_value("Kenya")
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
    assert any("not saved" in w.value and "answer every question" in w.value for w in at.warning)
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
    if current_item(at) != "a":                     # items come in the study's seeded random order
        at = submit(at, {"quality": "4", "yes_positive": "4"})
    assert current_item(at) == "a"
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
        at.radio[0].set_value("female")
        at.button[0].click().run()
        # a rater whose group is full is told at once, with no instructions to read first
        return at.button(key="start").click().run() if titles(at) == ["Instructions"] else at

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


def test_an_answer_sent_while_the_study_pauses_is_kept_and_the_rater_told_the_truth(db, study):
    at = through_onboarding(rater_app(study="tq", rater="r1"))
    item = current_item(at)
    configure_study(db, "tq", status="paused")              # the researcher pauses while r1 reads
    submit(at, ANSWER)
    assert titles(at) == ["This study is paused"]
    assert any("Your answers so far (1) are saved" in m.value for m in at.markdown)
    assert rating_store.rating_count(db, "tq") == 2          # both questions of the item
    configure_study(db, "tq", status="open")
    again = rater_app(study="tq", rater="r1")
    assert "1 of 2 done" in again.get("progress")[0].proto.text
    assert current_item(again) != item


def test_an_answer_sent_after_the_study_closed_is_refused_in_plain_words(db, study):
    at = through_onboarding(rater_app(study="tq", rater="r1"))
    configure_study(db, "tq", status="closed")
    submit(at, ANSWER)
    assert titles(at) == ["This study is closed"]
    said = [w.value for w in at.warning if "not saved" in w.value]
    assert len(said) == 1 and "closed" in said[0] and said[0].count("not saved") == 1, said   # said once
    assert rating_store.rating_count(db, "tq") == 0


def test_a_study_without_items_waits_paused_and_cannot_be_opened(db):
    create_study(db, "empty", "template_quality")
    at = rater_app(study="empty", rater="r1")
    assert titles(at) == ["This study is paused"]            # no consent, no instructions for nothing
    with pytest.raises(StudyError, match="no items"):
        configure_study(db, "empty", status="open")


def page_links(at) -> list[dict]:
    return [{"label": p.proto.label, "query": dict(parse_qsl(p.proto.query_string))} for p in at.get("page_link")]


def test_the_landing_page_lists_studies_only_to_researchers(db, study, tmp_path, monkeypatch):
    create_study(db, "second", "template_quality")
    import_items(db, "second", write_jsonl(tmp_path / "s.jsonl", [{"id": "x", "filled_template": "Q?"}]))
    monkeypatch.setenv("FAIRVAL_RESEARCHER_PASSWORD", "s3cret")
    stranger = rater_app(rater="r1")
    assert [p["label"] for p in page_links(stranger)] == ["Researchers: sign in"]
    researcher = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    researcher.query_params["rater"] = "r1"
    researcher.session_state["researcher_key"] = auth._fingerprint("s3cret")
    from fairval.annotate.serving import sign_in  # a sign-in holds its (unexpired) token
    researcher.session_state["researcher_token"] = sign_in.issue_token(sign_in.server_secret(db), "s3cret")
    links = page_links(researcher.run())
    studies = [p for p in links if p["label"] in ("tq", "second")]
    assert sorted(p["label"] for p in studies) == ["second", "tq"]
    assert all(p["query"].get("rater") == "r1" and p["query"]["study"] == p["label"] for p in studies)


def read_only(db_path):
    """A handle on the real file through a read-only connection: SQLite refuses every write with
    'attempt to write a readonly database', as on a disk remounted read-only."""
    import sqlite3

    from fairval.store.engine import Connection
    return Connection(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, isolation_level=None,
                                    check_same_thread=False), str(db_path))


def test_an_answer_the_database_cannot_take_is_said_in_words_and_taken_once_it_can(db, db_path, study):
    """Submit while the database refuses writes: the rater reads one plain sentence (no traceback) that the
    answer waits on the page; the page's own timer stores it once the fault clears, once."""
    from fairval.ui.rater_submit import ANSWER_WAITS
    at = through_onboarding(rater_app(study="tq", rater="r1"))
    item = current_item(at)
    _path, held = at.session_state["_fairval_db"]
    working, held.conn = held.conn, read_only(db_path).conn
    submit(at, ANSWER)
    assert not at.exception
    assert [w.value for w in at.warning] == [ANSWER_WAITS]
    assert rating_store.rating_count(db, "tq") == 0
    at.run()                                                  # the timer's next run: still refused
    assert [w.value for w in at.warning] == [ANSWER_WAITS] and rating_store.rating_count(db, "tq") == 0
    held.conn.close()
    held.conn = working                                       # the fault clears
    at.run()
    assert rating_store.rating_count(db, "tq") == 2 and current_item(at) != item and not at.warning
    assert "Answer saved" in card(at)["status"]
    at.run()
    assert rating_store.rating_count(db, "tq") == 2


def test_a_page_the_database_cannot_serve_says_so_and_tries_again_by_itself(db, db_path, study):
    from fairval.ui.rater import RETRY_SECONDS, UNAVAILABLE
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    at.query_params["study"], at.query_params["rater"] = "tq", "newcomer"
    at.session_state["_fairval_db"] = (str(db_path), read_only(db_path))   # arriving needs a write
    at.run()
    assert not at.exception
    assert [w.value for w in at.warning] == [UNAVAILABLE]
    shown = " ".join(str(e.value) for e in [*at.markdown, *at.warning, *at.error, *at.text])
    assert "Traceback" not in shown and str(ROOT) not in shown
    assert RETRY_SECONDS <= 10                                # the page's own timer, not the rater, retries
    at.session_state["_fairval_db"] = (str(db_path), db)                    # the fault clears: the next run
    at.run()
    assert titles(at) == ["Consent"]


def test_pair_options_show_the_key_beside_the_label_and_feedback_ends_its_sentence_once():
    """The key badge is what a rater presses, so no letter ("A)") competes with it; a label that ends in
    a full stop is quoted without it, so feedback never ends “….”."""
    from fairval.annotate.material.tasks import PRESETS
    from fairval.annotate.rating.session import Served
    from fairval.ui.answer_card import card_data, practice_feedback

    task = PRESETS["harmful_stereotype"]
    served = Served(item_id="p1", data={"prompt": "Q", "response_1": "R1", "response_2": "R2",
                                        "group_a": "woman", "group_b": "man"}, flipped=False, served_at=0.0,
                    gold=False, practice=True, expected={"harm": "A"})
    options = card_data(task, served, submit_label="Submit")["questions"][0]["options"]
    assert [o["key"] for o in options] == ["1", "2", "3"]
    assert all(not o["label"].startswith(("A)", "B)", "C)")) for o in options), options
    assert options[0]["label"].startswith("Giving Response 1 to a user in the group \u201cwoman\u201d")
    feedback = practice_feedback(task, served, {"harm": "B"})["harm"]["text"]
    assert ".”" not in feedback and feedback.endswith("”.") and feedback.count("”.") == 1, feedback


def test_a_chatbot_response_is_drawn_as_a_chat_window_draws_it_and_nothing_more():
    from fairval.ui.answers import response_html

    shown = response_html("Tips:\n\n1. **Save** early\n2. Use `git`\n\n- a\n- b\n\n```\ncode\n```\n"
                          "<b>raw</b> ![x](http://t.invalid/p.png) [y](http://t.invalid) http://t.invalid\n\n"
                          "[ref]: http://t.invalid/r")
    for tag in ("<ol>", "<li><strong>Save</strong> early</li>", "<code>git</code>", "<ul>", "<pre><code>code"):
        assert tag in shown, tag
    assert "&lt;b&gt;raw&lt;/b&gt;" in shown                                 # raw HTML is text
    assert "![x](http://t.invalid/p.png)" in shown and "[y](http://t.invalid)" in shown
    assert "[ref]: http://t.invalid/r" in shown                             # a definition stays as typed
    assert "<a" not in shown and "<img" not in shown and "href" not in shown and "src=" not in shown


def test_a_rater_whose_group_is_full_is_screened_out_right_after_saying_so(db, tmp_path):
    """Balanced by gender, one rater per group per item: once the women's places are taken, the next
    woman learns it right after the demographics page, before instructions and practice; a man goes on."""
    create_study(db, "bal", "template_quality", raters_per_item=2, balance_by="gender",
                 balance_groups=["female", "male"], screen_out_code="FULL-1", seed=3)
    import_items(db, "bal", write_jsonl(tmp_path / "b.jsonl", [{"id": "only", "filled_template": "Approve?"}]))

    def arrive(pid: str, gender: str) -> AppTest:
        at = rater_app(study="bal", PROLIFIC_PID=pid, STUDY_ID="s", SESSION_ID=f"x-{pid}")
        at.button(key="consent-yes").click().run()
        assert titles(at) == ["About you"]
        at.radio[0].set_value(gender)
        return at.button[0].click().run()

    first = arrive("w1", "female")
    assert titles(first) == ["Instructions"]
    first.button(key="start").click().run()
    submit(first, ANSWER)
    second = arrive("w2", "female")
    assert titles(second) == ["No items left for you"]
    assert "FULL-1" in [c.value for c in second.code]             # Prolific's screen-out code, at once
    third = arrive("m1", "male")
    assert titles(third) == ["Instructions"]


def test_the_answer_that_completes_a_pair_can_stop_the_study(db, tmp_path):
    """A rater's Submit that completes a pair checks the study's stopping rule: here the widest target there
    is (2, H's whole range), met at the first complete pair. The answer is stored; the study pauses."""
    from fairval.annotate.material.importers import import_lmra
    pair = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
    create_study(db, "ps", "harmful_stereotype", raters_per_item=1, target_ci_width=2.0)
    import_items(db, "ps", write_jsonl(tmp_path / "p.jsonl", [{"id": f"p{k}", **pair} for k in range(3)]))
    import_lmra(db, "ps", write_jsonl(tmp_path / "l.jsonl", [{"item_id": f"p{k}", "model": "j", "score": 0.1}
                                                             for k in range(3)]))
    at = rater_app(study="ps", rater="r1")
    at.button(key="consent-yes").click().run()
    at.button(key="start").click().run()
    submit(at, {"harm": "C"})
    assert rating_store.rating_count(db, "ps") == 1
    study = load_study(db, "ps")
    assert study.status == "paused" and "within the target 2.0" in study.recorded.stopped["reason"]
    assert titles(at) == ["This study is paused"]


def test_the_progress_total_never_shrinks_under_a_rater(db, tmp_path):
    """Others taking the items left must not turn a rater's "1 of 4" into "1 of 2": the total they were
    told stays; the session may end early, at fewer done than said, when nothing is left."""
    from fairval.annotate.rating import rater_progress, session
    create_study(db, "many", "template_quality", raters_per_item=1)
    import_items(db, "many", write_jsonl(tmp_path / "m.jsonl", [
        {"id": f"q{k}", "filled_template": f"Question {k}?"} for k in range(4)]))
    at = rater_app(study="many", rater="a")
    at.button(key="consent-yes").click().run()
    at.button(key="start").click().run()
    assert "0 of 4 done" in at.get("progress")[0].proto.text
    study = load_study(db, "many")
    for other in ("b", "c"):                        # two raters take an item each while a reads
        session.arrive(db, "many", other, source="link")
        session.give_consent(db, "many", other, True)
        session.finish_instructions(db, "many", other)
        served = session.serve_next_item(db, study, other)
        session.record_answer(db, study, other, served.item_id, ANSWER)
    assert rater_progress.progress(db, study, "a").expected == 2     # what is left for a now
    submit(at, ANSWER)
    assert "1 of 4 done" in at.get("progress")[0].proto.text
    submit(at, ANSWER)
    assert titles(at) == ["Thank you, you have finished"]


def test_a_link_without_a_rater_id_is_titled_without_the_task(db, tmp_path):
    """The page that asks for a rater ID names no task: a rater should not read what is being tested."""
    create_study(db, "pairs", "harmful_stereotype")
    import_items(db, "pairs", write_jsonl(tmp_path / "p.jsonl", [
        {"id": "p1", "prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}]))
    at = rater_app(study="pairs")
    assert titles(at) == ["Annotation study"]


@pytest.mark.parametrize("described, stored", [("  genderqueer ", "genderqueer"), ("", "prefer to self-describe")])
def test_a_self_described_gender_is_kept_in_the_raters_words(db, study, described, stored):
    at = rater_app(study="tq", rater="r1")
    at.button(key="consent-yes").click().run()
    at.radio[0].set_value("prefer to self-describe")
    at.text_input(key="gender-described").set_value(described)
    at.text_input(key="country").set_value("Kenya")
    at.button[0].click().run()
    assert titles(at) == ["Instructions"]
    assert db.execute("SELECT gender FROM raters WHERE rater_id = 'r1'").fetchone()[0] == stored


def test_group_names_are_shown_in_the_studys_language_and_stored_as_imported(db, tmp_path):
    create_study(db, "ar-pairs", "harmful_stereotype", raters_per_item=1, language="ar",
                 group_labels={"ar": {"woman": "امرأة", "man": "رجل"}, "fr": {"woman": "femme"}})
    import_items(db, "ar-pairs", write_jsonl(tmp_path / "p.jsonl", [
        {"id": "p1", "prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}]))
    at = rater_app(study="ar-pairs", rater="r1")
    at.button(key="consent-yes").click().run()
    at.button(key="start").click().run()
    labels = " ".join(o["label"] for q in card(at)["questions"] for o in q["options"])
    assert "امرأة" in labels and "رجل" in labels and "woman" not in labels and "femme" not in labels
    submit(at, {"harm": "A"})
    stored = db.execute("SELECT value, canonical FROM ratings WHERE item_id = 'p1'").fetchone()
    assert stored[0] == "A" and stored[1] in ("1", "-1")           # the option, not its words
    assert db.execute("SELECT data FROM items WHERE item_id = 'p1'").fetchone()[0].count('"woman"') == 1


def test_group_labels_that_are_not_text_are_refused_in_one_line(db):
    with pytest.raises(StudyError, match="group_labels must map a language to"):
        create_study(db, "bad", "harmful_stereotype", group_labels={"ar": ["امرأة"]})


def test_the_comment_hint_names_the_mac_key_only_for_a_mac():
    """The card shows hint_mac on a Mac (its script reads the platform) and hint elsewhere: ⌘ on Linux or
    Windows named a key those keyboards do not have."""
    from fairval.annotate.material.tasks import PRESETS
    from fairval.annotate.rating.session import Served
    from fairval.ui.answer_card import card_data

    task = PRESETS["scenario_select"]
    assert task.comment
    served = Served(item_id="s1", data={"scenario": "S"}, flipped=False, served_at=0.0, gold=False)
    data = card_data(task, served, submit_label="Submit")
    assert "⌘" not in data["hint"] and "Ctrl+Enter" in data["hint"]
    assert "⌘+Enter" in data["hint_mac"] and "Ctrl" not in data["hint_mac"]
