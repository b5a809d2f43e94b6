"""The adaptive design's mix τ kept as answers complete kept pairs (store.mixes, annotate.adaptive.next_pair.
answered) instead of read from every rating at each decision: raters served and answering through the
session functions, two per pair, on real SQLite and PostgreSQL. After every answer the stored count and τ
are those written out here from the whole study (every rating, every pair's uncertainty, live_floor as
the design chose τ before it was kept), and every decision records that τ; ratings imported mid-study
(completing a pair out of the answers' order) drop the kept τ and the next decision rebuilds it."""
import numpy as np
import pytest

from fairval.analysis.active import FLOOR_EVERY, live_floor, prior_floor, weighted_lambda
from fairval.annotate.adaptive import next_pair as adaptive
from fairval.annotate.material.importers import import_items, import_lmra, import_ratings
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.annotate.rating import session
from fairval.store import items as item_store
from fairval.store import lmra as lmra_store
from fairval.store import mixes as mix_store
from fairval.store import ratings as rating_store
from tests.annotate.adaptive.adaptive_worlds import world
from tests.conftest import write_jsonl

PAIRS, BUDGET, RATERS = 140, 64, 2


def expected(db) -> tuple[int, float]:
    """(complete kept pairs, τ) from the whole study: each kept pair's first RATERS raters (each at their
    first answer), complete pairs in the order they became complete, the first FLOOR_EVERY·k of them."""
    frame = item_store.decisions_frame(db, "s")
    kept = set(frame.loc[frame["kept"], "item_id"])
    firsts: dict[str, dict[str, float]] = {}
    done = []
    for row in rating_store.ratings_frame(db, "s").itertuples():
        if row.question != "harm" or row.item_id not in kept:
            continue
        first = firsts.setdefault(row.item_id, {})
        if row.rater_id not in first and len(first) < RATERS:
            first[row.rater_id] = float(row.canonical)       # harm's canonical answer is its score
            if len(first) == RATERS:
                done.append(row.item_id)
    counted = done[:len(done) // FLOOR_EVERY * FLOOR_EVERY]
    if not counted:
        return len(done), prior_floor()
    by_id = frame.set_index("item_id")
    judge = lmra_store.scores_frame(db, "s").set_index("item_id")["score"]
    y = np.array([sum(firsts[i].values()) / RATERS for i in counted])
    f, chance = judge[counted].to_numpy(float), by_id.loc[counted, "chance"].to_numpy(float)
    residual = y - weighted_lambda(y, f, 1 / chance) * f
    return len(done), live_floor(by_id.loc[counted, "uncertainty"].to_numpy(float), residual,
                                 frame["uncertainty"].to_numpy(float), BUDGET, rated_chance=chance)


@pytest.mark.both_backends
def test_the_kept_mix_is_the_one_every_rating_gives_after_each_answer(db, tmp_path):
    w = world(np.random.default_rng(21), PAIRS, related=True)
    ids = [f"p{k:04d}" for k in range(PAIRS)]
    pair = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
    create_study(db, "s", "harmful_stereotype", raters_per_item=RATERS, seed=6)
    import_items(db, "s", write_jsonl(tmp_path / "p.jsonl", [{"id": i, **pair} for i in ids]))
    import_lmra(db, "s", write_jsonl(tmp_path / "l.jsonl", [
        {"item_id": i, "model": "j", "p_a": a, "p_b": b, "p_c": c, "q_a": b, "q_b": a, "q_c": c}
        for i, (a, b, c) in zip(ids, w["r"])]))
    adaptive.start(db, "s", BUDGET, now=0.0)
    configure_study(db, "s", status="open")
    study, truth, rng = load_study(db, "s"), dict(zip(ids, w["truth"])), np.random.default_rng(4)
    raters = [f"r{k}" for k in range(4)]
    for rater in raters:
        session.arrive(db, "s", rater, source="link")
        session.give_consent(db, "s", rater, True)
        session.finish_instructions(db, "s", rater)
    now, answers, imported, mixes_seen = 1000.0, 0, False, set()
    while True:
        rater = raters[answers % len(raters)]
        before = expected(db)[1]
        decided = int(item_store.decisions_frame(db, "s")["decided_at"].notna().sum())
        served = session.serve_next_item(db, study, rater, now=now)
        if served is None:
            break
        frame = item_store.decisions_frame(db, "s")
        made = frame[frame["decided_at"].notna()].iloc[decided:]
        assert made["mix"].tolist() == [before] * len(made)        # each decision under the τ of that moment
        meant = "ABC"[rng.choice(3, p=truth[served.item_id])]
        shown = {"A": "B", "B": "A"}.get(meant, meant) if served.flipped else meant
        session.record_answer(db, study, rater, served.item_id, {"harm": shown}, now=now + 5)
        answers, now = answers + 1, now + 10
        state = mix_store.state(db, "s")
        complete, tau = expected(db)
        assert state == {"complete": complete, "mix": tau}
        mixes_seen.add(tau)
        taken = rating_store.ratings_frame(db, "s")["item_id"].value_counts()
        if complete >= 40 and not imported and (taken == 1).any():
            # a rater outside the app completes an open kept pair: the kept τ is dropped, rebuilt at the next decision
            open_pair = taken.index[taken == 1][0]
            import_ratings(db, "s", write_jsonl(tmp_path / "r.jsonl", [
                {"item_id": open_pair, "rater_id": "outside", "question": "harm", "value": "C"}]))
            imported = True
            assert mix_store.state(db, "s") is None
            assert expected(db)[0] == complete + 1
    assert imported and answers >= 100
    assert len(mixes_seen) > 1                  # τ was chosen again from the answers, not held at the prior
