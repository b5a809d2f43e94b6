"""The rater session against a real SQLite file: serving, recording, resuming, timeouts, quotas."""
import threading

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.annotate.rating import rater_progress, session
from fairval.errors import AnswerError, RaterIdError, SlotTaken
from fairval.store import open_db
from fairval.store import ratings as rating_store
from tests.conftest import write_jsonl

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server

ANSWER = {"quality": "4", "yes_positive": "5"}


def setup_items(db, tmp_path, study_id="tq", n=4, extra=None):
    rows = [{"id": f"t{i}", "filled_template": f"Question {i}?", "decision_question_id": i % 2}
            for i in range(n)] + (extra or [])
    import_items(db, study_id, write_jsonl(tmp_path / f"{study_id}.jsonl", rows))


def onboard(db, study, rater, **attrs):
    session.arrive(db, study.study_id, rater, source="link")
    session.give_consent(db, study.study_id, rater, True)
    if study.settings.asks():
        session.save_demographics(db, study, rater, attrs)
    session.finish_instructions(db, study.study_id, rater)


def rate_all(db, study, rater, now=None):
    done = []
    while (served := session.serve_next_item(db, study, rater, now=now)) is not None:
        session.record_answer(db, study, rater, served.item_id, ANSWER, now=now)
        done.append(served.item_id)
    return done


def test_flow_steps_in_order(db, tmp_path):
    study = create_study(db, "s", "template_quality", demographics=["gender"])
    setup_items(db, tmp_path, "s")
    session.arrive(db, "s", "r", source="link")
    assert session.next_step(db, study, "r") == "consent"
    session.give_consent(db, "s", "r", True)
    assert session.next_step(db, study, "r") == "demographics"
    with pytest.raises(AnswerError, match="gender"):
        session.save_demographics(db, study, "r", {})
    session.save_demographics(db, study, "r", {"gender": "female"})
    assert session.next_step(db, study, "r") == "instructions"
    session.finish_instructions(db, "s", "r")
    assert session.next_step(db, study, "r") == "item"


def test_declining_consent_stores_only_the_refusal(db, template_study, tmp_path):
    setup_items(db, tmp_path)
    session.arrive(db, "tq", "r", source="prolific", platform_study_id="st", platform_session_id="se")
    session.give_consent(db, "tq", "r", False)
    assert session.next_step(db, template_study, "r") == "declined"
    row = db.execute("SELECT consent, gender, race, country, platform_study_id, platform_session_id "
                     "FROM raters").fetchone()
    assert row == ("declined", None, None, None, None, None)
    assert db.execute("SELECT COUNT(*) FROM assignments").fetchone()[0] == 0


def test_each_item_gets_raters_per_item_distinct_raters_and_no_rater_sees_one_twice(db, template_study, tmp_path):
    setup_items(db, tmp_path, n=4)
    seen = {}
    for r in range(5):
        onboard(db, template_study, f"r{r}")
        seen[f"r{r}"] = rate_all(db, template_study, f"r{r}")
        assert len(seen[f"r{r}"]) == len(set(seen[f"r{r}"]))
    per_item = dict(db.execute("SELECT item_id, COUNT(DISTINCT rater_id) FROM ratings GROUP BY item_id"))
    assert per_item == {f"t{i}": 3 for i in range(4)}
    assert seen["r3"] == [] and seen["r4"] == []    # 4 items x 3 raters = 12 slots, taken by r0..r2


def test_an_item_others_started_goes_first(db, template_study, tmp_path):
    """Depth-first (issue 45): b gets the item a rated, still short of its 3 raters, not a new one."""
    setup_items(db, tmp_path, n=3)
    onboard(db, template_study, "a")
    first = session.serve_next_item(db, template_study, "a")
    session.record_answer(db, template_study, "a", first.item_id, ANSWER)
    onboard(db, template_study, "b")
    assert session.serve_next_item(db, template_study, "b").item_id == first.item_id


def test_reload_and_second_tab_get_the_same_open_item(db, template_study, tmp_path):
    setup_items(db, tmp_path)
    onboard(db, template_study, "r")
    one = session.serve_next_item(db, template_study, "r")
    two = session.serve_next_item(db, template_study, "r")
    assert one.item_id == two.item_id and one.served_at == two.served_at


def test_a_repeated_submit_changes_nothing(db, template_study, tmp_path):
    setup_items(db, tmp_path)
    onboard(db, template_study, "r")
    served = session.serve_next_item(db, template_study, "r", now=100.0)
    assert session.record_answer(db, template_study, "r", served.item_id, ANSWER, now=110.0) is True
    assert session.record_answer(db, template_study, "r", served.item_id,
                                 {"quality": "1", "yes_positive": "1"}, now=120.0) is False
    stored = rating_store.ratings_frame(db, "tq")
    assert sorted(stored["value"]) == ["4", "5"]
    assert set(stored["seconds"]) == {10.0}
    # what the page acknowledges: the same answer again is stored; another tab's other answer is not
    assert session.answer_is_stored(db, template_study, "r", served.item_id, ANSWER)
    assert not session.answer_is_stored(db, template_study, "r", served.item_id, {"quality": "1", "yes_positive": "1"})


def test_answers_are_validated(db, template_study, tmp_path):
    setup_items(db, tmp_path)
    onboard(db, template_study, "r")
    served = session.serve_next_item(db, template_study, "r")
    with pytest.raises(AnswerError, match="not an answer"):
        session.record_answer(db, template_study, "r", served.item_id, {"quality": "7", "yes_positive": "1"})
    never = next(f"t{k}" for k in range(4) if f"t{k}" != served.item_id)
    with pytest.raises(AnswerError, match="never served"):
        session.record_answer(db, template_study, "r", never, ANSWER)
    assert rating_store.rating_count(db, "tq") == 0


def test_an_unanswered_slot_goes_back_to_the_pool_after_the_timeout(db, tmp_path):
    study = create_study(db, "s", "template_quality", raters_per_item=1, timeout_seconds=60)
    setup_items(db, tmp_path, "s", n=1)
    onboard(db, study, "quitter")
    onboard(db, study, "other")
    assert session.serve_next_item(db, study, "quitter", now=1000.0).item_id == "t0"
    assert session.serve_next_item(db, study, "other", now=1030.0) is None       # still held
    assert session.serve_next_item(db, study, "other", now=1061.0).item_id == "t0"  # released
    # issue 55: the quitter's late answer would be the item's second rater of one: refused, and "other" answers
    with pytest.raises(SlotTaken):
        session.record_answer(db, study, "quitter", "t0", ANSWER, now=1100.0)
    assert session.record_answer(db, study, "other", "t0", ANSWER, now=1101.0) is True


def test_a_late_answer_is_kept_while_nobody_else_took_the_item(db, tmp_path):
    study = create_study(db, "s", "template_quality", raters_per_item=1, timeout_seconds=60)
    setup_items(db, tmp_path, "s", n=1)
    onboard(db, study, "slow")
    assert session.serve_next_item(db, study, "slow", now=1000.0).item_id == "t0"
    assert session.serve_next_item(db, study, "slow", now=1100.0) is None         # the lapsed slot is released
    assert db.scalar("SELECT counted FROM assignments WHERE rater_id = 'slow'") == 0
    assert session.record_answer(db, study, "slow", "t0", ANSWER, now=1200.0) is True


def test_balance_quota_per_group(db, tmp_path):
    study = create_study(db, "s", "template_quality", raters_per_item=2, balance_by="gender",
                         balance_groups=["female", "male"])
    setup_items(db, tmp_path, "s", n=2)
    for r in ("f1", "f2"):
        onboard(db, study, r, gender="female")
    onboard(db, study, "m1", gender="male")
    onboard(db, study, "x", gender="non-binary")
    assert len(rate_all(db, study, "f1")) == 2
    assert rate_all(db, study, "f2") == []            # female quota (1 per item) is full
    assert len(rate_all(db, study, "m1")) == 2
    assert rate_all(db, study, "x") == []             # not a balance group


def test_gold_items_are_mixed_in_at_the_rate(db, tmp_path):
    study = create_study(db, "s", "template_quality", raters_per_item=1, gold_rate=0.25)
    setup_items(db, tmp_path, "s", n=6, extra=[
        {"id": f"g{i}", "filled_template": "Attention: choose 1 and 1.", "_gold": {"quality": 1, "yes_positive": 1}}
        for i in range(3)])
    onboard(db, study, "r")
    served = rate_all(db, study, "r")
    assert [i.startswith("g") for i in served] == [False, False, False, True] * 2


def test_max_items_per_rater(db, tmp_path):
    study = create_study(db, "s", "template_quality", max_items_per_rater=2)
    setup_items(db, tmp_path, "s", n=4)
    onboard(db, study, "r")
    assert len(rate_all(db, study, "r")) == 2


def test_paused_and_closed_studies_serve_nothing_new(db, template_study, tmp_path):
    setup_items(db, tmp_path)
    onboard(db, template_study, "r")
    paused = configure_study(db, "tq", status="paused")
    assert session.next_step(db, paused, "r") == "paused"
    closed = configure_study(db, "tq", status="closed")
    assert session.next_step(db, closed, "r") == "closed"


def test_concurrent_workers_never_overfill_an_item(db_path, tmp_path):
    """Eight threads, each with its own connection, as several server workers would have."""
    db = open_db(db_path)
    study = create_study(db, "s", "template_quality", raters_per_item=2)
    setup_items(db, tmp_path, "s", n=5)
    errors = []

    def worker(name):
        conn = open_db(db_path)
        try:
            onboard(conn, study, name)
            rate_all(conn, load_study(conn, "s"), name)
        except Exception as e:  # collected so the test can show it
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    per_item = dict(db.execute("SELECT item_id, COUNT(DISTINCT rater_id) FROM ratings GROUP BY item_id"))
    assert per_item == {f"t{i}": 2 for i in range(5)}


def test_a_paused_study_says_so_before_consent_and_a_finished_rater_stays_done(db, template_study, tmp_path):
    setup_items(db, tmp_path, n=1)
    paused = configure_study(db, "tq", status="paused")
    session.arrive(db, "tq", "new", source="link")
    assert session.next_step(db, paused, "new") == "paused"
    opened = configure_study(db, "tq", status="open")
    onboard(db, opened, "r")
    rate_all(db, opened, "r")
    session.finish(db, "tq", "r")
    assert session.next_step(db, configure_study(db, "tq", status="closed"), "r") == "done"


def test_progress_promises_only_what_is_left_for_this_rater(db, tmp_path):
    study = create_study(db, "s", "template_quality", raters_per_item=1)
    setup_items(db, tmp_path, "s", n=4)
    onboard(db, study, "a")
    for _ in range(2):
        served = session.serve_next_item(db, study, "a")
        session.record_answer(db, study, "a", served.item_id, ANSWER)
    assert rater_progress.progress(db, study, "a") == rater_progress.Progress(2, 4)
    onboard(db, study, "b")
    session.serve_next_item(db, study, "b")
    assert rater_progress.progress(db, study, "b") == rater_progress.Progress(0, 2)   # one on screen, one more open
    capped = configure_study(db, "s", max_items_per_rater=1)
    assert rater_progress.progress(db, capped, "b") == rater_progress.Progress(0, 1)


@pytest.mark.parametrize("n, checks, rate, cap", [(4, 1, 0.2, None), (12, 2, 0.25, None), (9, 3, 0.25, 5),
                                                   (3, 2, 0.5, None)])
def test_progress_counts_the_attention_checks_and_holds_its_total(db, tmp_path, n, checks, rate, cap):
    """The progress line counts every item a rater answers, the checks included: its total, read before the
    first item, is the number of items the rater then answers, and it stays the same all the way (a line
    that counted around the check said "4 of 4 done" while the check was on screen)."""
    study = create_study(db, "s", "template_quality", raters_per_item=1, gold_rate=rate, max_items_per_rater=cap)
    # items of no template: what is counted here is the progress line, not the no-two-fills rule (a rater
    # whose items left are all fills of the template just had is served no more: tests/annotate/rating)
    rows = [{"id": f"t{i}", "filled_template": f"Question {i}?"} for i in range(n)] + [
        {"id": f"g{i}", "filled_template": "Attention: choose 1 and 1.", "_gold": {"quality": 1, "yes_positive": 1}}
        for i in range(checks)]
    import_items(db, "s", write_jsonl(tmp_path / "s.jsonl", rows))
    onboard(db, study, "a")
    seen = [rater_progress.progress(db, study, "a")]
    answered = 0
    while (served := session.serve_next_item(db, study, "a")) is not None:
        seen.append(rater_progress.progress(db, study, "a"))          # the item on screen, the check as any other
        session.record_answer(db, study, "a", served.item_id, {"quality": "1", "yes_positive": "1"})
        answered += 1
        seen.append(rater_progress.progress(db, study, "a"))
    golds = db.scalar("SELECT COUNT(*) FROM assignments a JOIN items i USING (study_id, item_id) "
                      "WHERE a.rater_id = 'a' AND i.gold IS NOT NULL")
    assert golds >= 1                                               # a check was among them
    assert {p.expected for p in seen} == {answered}
    assert [p.answered for p in seen[1::2]] == list(range(answered))
    assert seen[-1].answered == answered


def test_a_database_from_before_item_loads_serves_as_it_did(db_path, tmp_path):
    """Schema 2 had no kept loads: the first serve after the upgrade counts the old ledger."""
    from fairval.store.db import connect
    from fairval.store.schema import MIGRATIONS

    old = connect(db_path)
    for step in MIGRATIONS[:2]:
        step(old)
    old.set_schema_version(2)
    old.execute("""INSERT INTO studies (study_id, task, settings, status, created_at)
                   VALUES ('s', 'template_quality', '{"raters_per_item": 1, "timeout_seconds": 60}', 'open', 0)""")
    for k in range(3):
        old.execute("INSERT INTO items (study_id, item_id, position, data, source_format) VALUES "
                    "('s', ?, ?, '{\"filled_template\": \"Q?\"}', 'jsonl')", [f"t{k}", k])
    old.execute("INSERT INTO raters (study_id, rater_id, source, consent, instructions_done, started_at) "
                "VALUES ('s', 'a', 'link', 'given', 1, 0), ('s', 'b', 'link', 'given', 1, 0)")
    old.execute("INSERT INTO assignments (study_id, rater_id, item_id, served_at, answered_at) "
                "VALUES ('s', 'a', 't0', 990, 995), ('s', 'a', 't1', 1000, NULL)")
    old.execute("INSERT INTO ratings (study_id, item_id, rater_id, question, value, canonical, source) "
                "VALUES ('s', 't0', 'a', 'quality', '4', '4', 'app'), ('s', 't0', 'a', 'yes_positive', '4', '4', 'app')")
    old.close()
    db = open_db(db_path)
    study = load_study(db, "s")
    assert session.serve_next_item(db, study, "b", now=1010.0).item_id == "t2"   # t0 rated, t1 held by a
    assert session.serve_next_item(db, study, "a", now=1010.0).item_id == "t1"   # a's own open slot
    assert rater_progress.progress(db, study, "b", now=1010.0) == rater_progress.Progress(0, 1)


def test_rater_ids_are_normalised_and_invisible_characters_refused(db, template_study):
    """`alice` typed with a combining accent or with a zero-width space must not become a second rater,
    nor an id display as something else on the researcher's pages."""
    composed = session.arrive(db, "tq", "Am\u00e9lie", source="link")["rater_id"]
    decomposed = session.arrive(db, "tq", " Ame\u0301lie ", source="link")["rater_id"]
    assert composed == decomposed == "Am\u00e9lie"
    for sneaky in ("alice\u200b", "al\u202eice", "bob\u2066", "eve\x07"):
        with pytest.raises(RaterIdError, match=r"invisible or control characters \(found U\+"):
            session.arrive(db, "tq", sneaky, source="link")
    assert db.scalar("SELECT COUNT(*) FROM raters WHERE study_id = 'tq'") == 1


def test_a_submit_is_one_write_transaction(db, template_study, tmp_path):
    """Record the answer and hold the next item in one transaction; the page's way back (the rater's
    arrival, the next item) reads without taking the write lock. Counted from SQLite's own statements."""
    if db.dialect != "sqlite":
        pytest.skip("counts SQLite's BEGIN IMMEDIATE statements")
    setup_items(db, tmp_path)
    onboard(db, template_study, "r")
    served = session.serve_next_item(db, template_study, "r", now=100.0)
    statements = []
    db.conn.set_trace_callback(statements.append)
    try:
        session.record_answer(db, template_study, "r", served.item_id, ANSWER, now=110.0, serve_next=True)
        session.arrive(db, "tq", "r", source="link")
        following = session.serve_next_item(db, template_study, "r", now=111.0)
    finally:
        db.conn.set_trace_callback(None)
    assert [s for s in statements if s.startswith("BEGIN")] == ["BEGIN IMMEDIATE"]
    assert following is not None and following.item_id != served.item_id
    assert session.serve_next_item(db, template_study, "r", now=112.0).item_id == following.item_id   # held
