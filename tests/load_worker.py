"""What each process of tests/annotate/rating/test_load.py runs. A module imported by its plain name
(`tests.load_worker`), not a test module: pytest names test modules after the checkout's folder, and a
spawned process must import the function it is sent by the same name."""
from fairval.annotate.material.studies import load_study
from fairval.annotate.rating import session
from fairval.store import open_db

ANSWER = {"quality": "4", "yes_positive": "2"}


def rater_process(location: str, raters: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each rater answers until nothing is left for them; returns the acknowledged (rater, item) pairs."""
    db = open_db(location)
    study = load_study(db, "load")
    acknowledged = []
    for rater, gender in raters:
        session.arrive(db, "load", rater, source="link")
        session.give_consent(db, "load", rater, True)
        session.save_demographics(db, study, rater, {"gender": gender})
        session.finish_instructions(db, "load", rater)
    pending = list(raters)
    while pending:                       # the process's raters take turns, as interleaved sessions do
        for rater, gender in list(pending):
            served = session.serve_next_item(db, study, rater)
            if served is None:
                pending.remove((rater, gender))
                continue
            if session.record_answer(db, study, rater, served.item_id, ANSWER):
                acknowledged.append((rater, served.item_id))
    db.close()
    return acknowledged
