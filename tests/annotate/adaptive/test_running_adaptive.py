"""The stopping rule's interval kept as the adaptive design's decided prefix grows (annotate.rating.
running_adaptive): raters served and answering through the session functions as the rater page calls
them (with a rule: record_answer without serving, the stopping check when the answer completes a pair,
then serve_next_item), on real SQLite; at several moments — after a check, right after a serve that
decided pairs, at the end — the stored interval is harm.ppi.cs of `fairval analyze --json`
(study_numbers, the whole analysis), and the check reads it instead of running that analysis."""
import numpy as np
import pytest

from fairval.analysis.sequential import ASYMPTOTIC_FROM
from fairval.annotate.adaptive import next_pair as adaptive
from fairval.annotate.crowd import stopping
from fairval.annotate.material.importers import import_items, import_lmra
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.annotate.rating import session
from fairval.annotate.results.numbers import study_numbers
from fairval.store import running as running_store
from tests.annotate.adaptive.adaptive_worlds import decided_count, world
from tests.conftest import write_jsonl

PAIRS, BUDGET, RATERS_PER_PAIR = 160, 70, 2


def full_cs(db):
    return study_numbers(db, "s", n_boot=0).to_dict()["harm"]["ppi"]["cs"]


def same(db, kept=None):
    """The stored interval against the whole analysis's, now; returns the analysis's."""
    full, kept = full_cs(db), kept or running_store.interval(db, "s")
    assert kept is not None
    assert kept["n_pairs_complete"] == full["n_pairs_complete"]
    if full["ci"] is None:
        assert kept["ci"] is None
    else:
        assert kept["ci"] == pytest.approx(full["ci"], abs=1e-12)
        assert kept["value"] == pytest.approx(full["value"], abs=1e-12)
    return full


@pytest.fixture
def study(db, tmp_path):
    """160 pairs, the judge sure and right about most (its uncertainty from its probabilities), under the
    adaptive design with a budget of 70, two raters per pair, a rule never met (the checks go on)."""
    w = world(np.random.default_rng(5), PAIRS, related=True)
    ids = [f"p{k:04d}" for k in range(PAIRS)]
    pair = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
    create_study(db, "s", "harmful_stereotype", raters_per_item=RATERS_PER_PAIR, seed=4)
    import_items(db, "s", write_jsonl(tmp_path / "p.jsonl", [{"id": i, **pair} for i in ids]))
    import_lmra(db, "s", write_jsonl(tmp_path / "l.jsonl", [
        {"item_id": i, "model": "j", "p_a": a, "p_b": b, "p_c": c, "q_a": b, "q_b": a, "q_c": c}
        for i, (a, b, c) in zip(ids, w["r"])]))
    adaptive.start(db, "s", BUDGET, now=0.0)
    configure_study(db, "s", status="open", target_ci_width=0.001)
    return dict(zip(ids, w["truth"]))


@pytest.mark.both_backends
def test_the_kept_interval_is_the_full_analysis_as_pairs_complete_and_are_decided(db, study):
    s = load_study(db, "s")
    rng = np.random.default_rng(8)
    raters = [f"r{k}" for k in range(5)]
    for rater in raters:
        session.arrive(db, "s", rater, source="link")
        session.give_consent(db, "s", rater, True)
        session.finish_instructions(db, "s", rater)
    assert stopping.check(db, "s", now=900.0) is None           # the first check builds the state
    compared, complete, now = {"check": 0, "serve": 0}, 0, 1000.0
    served = {r: session.serve_next_item(db, s, r, now=now) for r in raters}
    while any(served.values()):
        for rater in raters:
            item = served[rater]
            if item is None:
                continue
            meant = "ABC"[rng.choice(3, p=study[item.item_id])]
            shown = {"A": "B", "B": "A"}.get(meant, meant) if item.flipped else meant
            assert session.record_answer(db, s, rater, item.item_id, {"harm": shown}, now=now, serve_next=False)
            now += 7
            if db.scalar("SELECT COUNT(*) FROM ratings WHERE item_id = ?", [item.item_id]) == RATERS_PER_PAIR:
                complete += 1
                assert stopping.check(db, "s", now=now) is None          # the page's check on this Submit
                if complete % 12 == 0:
                    same(db)
                    compared["check"] += 1
            before = running_store.interval(db, "s")["n_pairs_complete"]
            decided = decided_count(db, "s")[0]
            served[rater] = session.serve_next_item(db, s, rater, now=now)    # the page serves the next pair
            if decided_count(db, "s")[0] > decided + 1 and compared["serve"] < 5:
                assert running_store.interval(db, "s")["n_pairs_complete"] >= before
                same(db)                                 # pairs left to the judge were decided past the prefix
                compared["serve"] += 1
    end = same(db)
    assert compared["check"] >= 5 and compared["serve"] >= 3
    decided, _kept, undecided = decided_count(db, "s")
    assert undecided == 0 and end["n_decided"] == PAIRS > ASYMPTOTIC_FROM    # the whole order, through both parts
    assert end["ci"][1] - end["ci"][0] < 1.0
    # the state was stepped, not rebuilt at each check: forgetting it and rebuilding gives the same numbers
    stepped = running_store.interval(db, "s")
    running_store.forget(db, "s")
    stopping.check(db, "s", now=now)
    assert running_store.interval(db, "s")["ci"] == pytest.approx(stepped["ci"], abs=1e-12)
