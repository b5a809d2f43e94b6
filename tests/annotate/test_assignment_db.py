"""The policy as the database runs it (SQL pre-filter + pure choice), under random arrivals, answers,
quits and clock jumps: no double service, no overrun of targets or quotas, every item filled."""
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotate import session
from annotate.importers import import_items
from annotate.studies import create_study
from store import open_db
from tests.conftest import write_jsonl

ANSWER = {"quality": "3", "yes_positive": "3"}
TIMEOUT = 100.0

actions = st.lists(st.tuples(st.integers(0, 7), st.sampled_from(["answer", "answer", "quit", "wait"])),
                   min_size=1, max_size=40)


def holders(db, now):
    """item -> {rater: group} of raters who answered or hold an unexpired slot."""
    out = {}
    for item, rater, group in db.execute(
            """SELECT a.item_id, a.rater_id, r.gender FROM assignments a JOIN raters r USING (study_id, rater_id)
               WHERE a.answered_at IS NOT NULL OR a.served_at >= ?""", [now - TIMEOUT]):
        out.setdefault(item, {})[rater] = group
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_items=st.integers(1, 5), target=st.integers(1, 4), balanced=st.booleans(), steps=actions)
def test_database_assignment_invariants(n_items, target, balanced, steps):
    with tempfile.TemporaryDirectory() as tmp:
        db = open_db(Path(tmp) / "a.db")
        extra = {"balance_by": "gender", "balance_groups": ["female", "male"]} if balanced else {}
        study = create_study(db, "s", "template_quality", raters_per_item=target, timeout_seconds=TIMEOUT, **extra)
        import_items(db, "s", write_jsonl(Path(tmp) / "i.jsonl",
                                          [{"id": f"i{k}", "filled_template": "Q?"} for k in range(n_items)]))
        quota = study.settings.quota()
        now = 1000.0
        for rater_no, action in steps:
            rater = f"r{rater_no}"
            if action == "wait":
                now += TIMEOUT + 1
                continue
            session.arrive(db, "s", rater, source="link")
            session.give_consent(db, "s", rater, True)
            if balanced:
                session.save_demographics(db, study, rater, {"gender": "female" if rater_no % 2 else "male"})
            served = session.serve_next_item(db, study, rater, now=now)
            if served is not None and action == "answer":
                session.record_answer(db, study, rater, served.item_id, ANSWER, now=now)
            held = holders(db, now)
            for item, raters in held.items():
                assert len(raters) <= target
                if quota:
                    for group, cap in quota.items():
                        assert sum(g == group for g in raters.values()) <= cap
            now += 1
        served_twice = db.execute("SELECT COUNT(*) FROM (SELECT rater_id, item_id FROM assignments "
                                  "GROUP BY rater_id, item_id HAVING COUNT(*) > 1)").fetchone()[0]
        assert served_twice == 0
        # then enough fresh raters of each group come and answer everything: every item fills up
        now += TIMEOUT + 1
        for k in range(2 * target):
            rater = f"late{k}"
            session.arrive(db, "s", rater, source="link")
            session.give_consent(db, "s", rater, True)
            if balanced:
                session.save_demographics(db, study, rater, {"gender": "female" if k % 2 else "male"})
            while (served := session.serve_next_item(db, study, rater, now=now)) is not None:
                session.record_answer(db, study, rater, served.item_id, ANSWER, now=now)
        answered = dict(db.execute("SELECT item_id, COUNT(DISTINCT rater_id) FROM ratings GROUP BY item_id"))
        assert answered == {f"i{k}": target for k in range(n_items)}
        db.close()
