"""The demo as a real study: newcomers after the pretend raters are each served every item, the attention
check among them, and each one's progress line holds its total from the first item to the last."""
import pytest

from fairval.annotate.material.demo import ensure_demo
from fairval.annotate.material.studies import load_study
from fairval.annotate.rating import rater_progress, session
from fairval.store import items as item_store


def walk(db, study, rater, **background):
    session.arrive(db, study.study_id, rater, source="link")
    session.give_consent(db, study.study_id, rater, True)
    session.save_demographics(db, study, rater, {a: background.get(a, "prefer not to say") for a in study.settings.asks()})
    session.finish_instructions(db, study.study_id, rater)
    totals, served_ids = [], []
    while (served := session.serve_next_item(db, study, rater)) is not None:
        totals.append(rater_progress.progress(db, study, rater).expected)
        answers = {q.id: q.values[0] for q in study.task.questions}
        session.record_answer(db, study, rater, served.item_id, answers)
        served_ids.append(served.item_id)
    return served_ids, totals


@pytest.mark.parametrize("name, backgrounds", [
    ("demo-templates", [{"gender": "female"}, {"gender": "male"}, {"gender": "non-binary"}]),
    ("demo-pairs", [{"gender": g} for g in ("female", "female", "female", "male", "male", "male")])])
def test_three_newcomers_are_each_served_every_item_of_the_demo(db, name, backgrounds):
    ensure_demo(db)
    study = load_study(db, name)
    regular = {i["item_id"] for i in item_store.list_items(db, name) if not i["practice"] and i["gold"] is None}
    template = {i["item_id"]: i["data"].get("decision_question_id") for i in item_store.list_items(db, name)}
    for k, background in enumerate(backgrounds):
        served, totals = walk(db, study, f"newcomer-{k}", **background)
        missed = regular - set(served)
        # no two fills of one template in a row: a rater whose only items left are fills of the template
        # they just had is served no more (another rater takes them), at most one such fill in this demo
        last = next(template[i] for i in reversed(served) if i in regular)
        assert not missed or (len(missed) == 1 and last is not None
                              and {template[i] for i in missed} == {last}), \
            f"newcomer {k} of {name} missed {sorted(missed)}"
        assert len(served) > len(regular) - len(missed)         # and the attention check among them
        assert len(set(totals)) == 1 and totals[0] >= len(served)   # "3 of 8" never became "3 of 4"
