"""The server's wall clock jumps 2 hours forward and back while raters answer (an NTP step, a VM resumed):
the raters-per-item cap holds whatever the clock does, and no answer is recorded before it was shown or with a
negative duration (issue 55: 11 items got up to 6 raters of 3, 60 rows had answered_at < shown_at). The clock
is injected: every serve and answer is given its `now`."""
import random

import pytest

from fairval.annotate.material.studies import create_study
from fairval.annotate.rating import session
from fairval.errors import SlotTaken
from tests.annotate.rating.test_session import ANSWER, onboard, setup_items

pytestmark = pytest.mark.both_backends

HOURS_2 = 7200.0


def _clock(step: int) -> float:
    """Wall time at step k: 10 s a step, 2 hours ahead for steps 40-79, then back where it was."""
    return 1_000_000.0 + 10.0 * step + (HOURS_2 if 40 <= step < 80 else 0.0)


def test_the_cap_and_the_durations_hold_when_the_clock_jumps(db, tmp_path):
    study = create_study(db, "s", "template_quality", raters_per_item=3, timeout_seconds=600, seed=2)
    setup_items(db, tmp_path, "s", n=30)
    raters = [f"r{k}" for k in range(12)]
    for rater in raters:
        onboard(db, study, rater)
    draw = random.Random(7)
    held: dict[str, str] = {}                   # rater -> the item on their screen
    refused = 0
    for step in range(120):
        now = _clock(step)
        rater = draw.choice(raters)
        if rater in held:                       # they answer what they were shown
            try:
                session.record_answer(db, study, rater, held.pop(rater), ANSWER, now=now)
            except SlotTaken:
                refused += 1                    # told "not saved": their slot went to others meanwhile
        else:
            served = session.serve_next_item(db, study, rater, now=now)
            if served is not None:
                held[rater] = served.item_id
    for rater, item in held.items():            # everyone still holding an item answers, the clock back
        try:
            session.record_answer(db, study, rater, item, ANSWER, now=_clock(121))
        except SlotTaken:
            refused += 1
    per_item = dict(db.execute("SELECT item_id, COUNT(DISTINCT rater_id) FROM ratings WHERE study_id = 's' "
                               "GROUP BY item_id").fetchall())
    assert max(per_item.values()) <= 3, per_item
    assert refused > 0                          # the jump did release slots whose raters came back (the test bites)
    rows = db.query("SELECT shown_at, answered_at, seconds FROM ratings WHERE study_id = 's'")
    assert rows and all(r["answered_at"] >= r["shown_at"] for r in rows)
    assert all(r["seconds"] is None or r["seconds"] >= 0 for r in rows)
    # a duration measured across the backward jump is unknown (NULL), never a made-up 0 s
    back = [r for r in rows if r["shown_at"] >= _clock(40) and r["answered_at"] == r["shown_at"]]
    assert back and all(r["seconds"] is None for r in back)
    assert all(r["seconds"] == pytest.approx(r["answered_at"] - r["shown_at"]) for r in rows if r["seconds"] is not None)
