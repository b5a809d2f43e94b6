"""The stopping rule's interval kept as pairs complete (annotate.rating.running_interval, annotate.crowd.stopping):
simulated raters call the session functions a page calls, on real SQLite; after every completed pair the kept interval is the one
the full analysis reports (harm.ppi.cs of `fairval analyze --json`, recomputed from the whole study), the
study stops itself at the first answer whose pair brings that interval to the target width, and a write
that changes terms (imported ratings, a judge's scores added later, two workers at once) leaves the kept
interval agreeing with the full one."""
import threading

import numpy as np
import pandas as pd
import pytest

from fairval.analysis.calibration import human_scores
from fairval.analysis.sequential import ASYMPTOTIC_FROM
from fairval.annotate.crowd import stopping
from fairval.annotate.material.importers import import_items, import_lmra, import_ratings
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.annotate.rating import session
from fairval.annotate.rating.sampling import draw_active_sample
from fairval.annotate.results.judge import ppi_numbers
from fairval.annotate.results.numbers import completed_pairs, load_study_data, main_judge, scored_ratings, study_numbers
from fairval.store import open_db
from fairval.store import running as running_store
from tests.conftest import write_jsonl

PAIR = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
PAIRS = 160


def full_cs(db, study_id="s"):
    """harm.ppi.cs as the whole analysis computes it from every stored rating (`fairval analyze --json`)."""
    return study_numbers(db, study_id, n_boot=0).to_dict()["harm"]["ppi"]["cs"]


def analysis_cs(db, study_id="s"):
    """The same interval from the analysis's own PPI function over the whole study, without the numbers
    the stopping rule does not read (what makes study_numbers slow after every pair)."""
    data = load_study_data(db, study_id)
    ratings = scored_ratings(data)
    judge = data.lmra[data.lmra["model"] == main_judge(data)].set_index("item_id")["score"]
    settings = data.study.settings
    return ppi_numbers(human_scores(ratings), judge, data.study.design,
                       inclusion=pd.Series(data.inclusion, dtype=float),
                       completed=completed_pairs(ratings, settings.raters_per_item),
                       raters_per_item=settings.raters_per_item).to_dict()["cs"]


def kept_cs(db, study_id="s"):
    return running_store.interval(db, study_id)


def shown(score: int, flipped: bool) -> str:
    """The option a rater clicks to mean `score` (+1 the stereotype as assigned, −1 reversed, 0 none)."""
    if score == 0:
        return "C"
    return "A" if (score == 1) != flipped else "B"


@pytest.fixture
def study(db, tmp_path):
    """160 pairs a judge "j" scored; people agree with the judge's sign on most pairs."""
    rng = np.random.default_rng(7)
    judge = rng.choice([-1.0, 0.0, 0.0, 0.0, 1.0], PAIRS) * rng.uniform(0.5, 1.0, PAIRS)
    create_study(db, "s", "harmful_stereotype", raters_per_item=2, seed=3)
    import_items(db, "s", write_jsonl(tmp_path / "p.jsonl", [{"id": f"p{k:03d}", **PAIR} for k in range(PAIRS)]))
    import_lmra(db, "s", write_jsonl(tmp_path / "l.jsonl", [{"item_id": f"p{k:03d}", "model": "j", "score": float(s)}
                                                           for k, s in enumerate(judge)]))
    configure_study(db, "s", status="open")
    return {f"p{k:03d}": s for k, s in enumerate(judge)}


def answer(db, study, rater, judge, rng, now):
    """One rater's next pair, answered: the judge's sign 80% of the time, else any answer."""
    served = session.serve_next_item(db, study, rater, now=now)
    if served is None:
        return None
    score = int(np.sign(judge[served.item_id])) if rng.random() < 0.8 else int(rng.integers(-1, 2))
    session.record_answer(db, study, rater, served.item_id, {"harm": shown(score, served.flipped)}, now=now + 5)
    return served.item_id


def onboard(db, study, raters):
    for rater in raters:
        session.arrive(db, "s", rater, source="link")
        session.give_consent(db, "s", rater, True)
        session.finish_instructions(db, "s", rater)


def test_the_kept_interval_is_the_full_analysis_after_every_pair_and_stops_the_study_there(db, study):
    configure_study(db, "s", target_ci_width=0.4)
    s = load_study(db, "s")
    raters = [f"r{k}" for k in range(6)]
    onboard(db, s, raters)
    rng = np.random.default_rng(1)
    widths, stopped, now = [], None, 1000.0
    while stopped is None:
        for rater in raters:
            item = answer(db, s, rater, study, rng, now)
            assert item is not None, "the study never stopped"
            now += 10
            if db.scalar("SELECT COUNT(DISTINCT rater_id) FROM ratings WHERE item_id = ?", [item]) == 2:
                stepped = kept_cs(db)                   # as this Submit left it
                stopped = stopping.check(db, "s", now=now)        # what the rater page does on this Submit
                full = analysis_cs(db)
                assert stepped is not None or not widths          # the first check built it; then Submits step it
                kept = stepped or kept_cs(db)
                assert kept["n_pairs_complete"] == full["n_pairs_complete"] == len(widths) + 1
                assert kept["ci"] == pytest.approx(full["ci"], abs=1e-12)
                assert kept["value"] == pytest.approx(full["value"], abs=1e-12)
                widths.append(full["ci"][1] - full["ci"][0])
                if stopped is not None:
                    break
    # it stopped at the first pair whose full interval is within the target, and not before
    assert widths[-1] <= 0.4 < min(widths[:-1])
    assert ASYMPTOTIC_FROM < len(widths) < PAIRS         # through the exact head and the asymptotic sequence
    assert stopped["ci"] == pytest.approx(full_cs(db)["ci"], abs=1e-12)       # `analyze --json`'s own
    assert stopped["n_pairs_complete"] == len(widths)
    assert load_study(db, "s").status == "paused"


def serve_some(db, judge, raters, answers, seed=2, now=1000.0):
    s = load_study(db, "s")
    rng = np.random.default_rng(seed)
    for k in range(answers):
        answer(db, s, raters[k % len(raters)], judge, rng, now + 10 * k)


@pytest.mark.both_backends
def test_imported_ratings_and_a_judge_scored_later_are_rebuilt_into_the_same_interval(db, study, tmp_path):
    configure_study(db, "s", target_ci_width=0.01)            # a rule never met: the check goes on
    onboard(db, load_study(db, "s"), ["r0", "r1", "r2"])
    assert stopping.check(db, "s") is None                    # builds the state from the (empty) study
    serve_some(db, study, ["r0", "r1", "r2"], 200)
    served = kept_cs(db)["n_pairs_complete"]
    assert served >= 20 and kept_cs(db)["ci"] == pytest.approx(full_cs(db)["ci"], abs=1e-12)
    # ratings completing 30 open pairs, imported from elsewhere: the kept state is forgotten, then rebuilt
    counts = {i: db.scalar("SELECT COUNT(*) FROM ratings WHERE item_id = ?", [i]) for i in study}
    open_pairs = [i for i, c in counts.items() if c < 2][:30]
    rows = [{"item_id": i, "rater_id": f"x{k}", "question": "harm", "value": "C"}
            for i in open_pairs for k in range(2 - counts[i])]
    import_ratings(db, "s", write_jsonl(tmp_path / "r.jsonl", rows))
    assert kept_cs(db) is None
    assert stopping.check(db, "s") is None
    after_import = full_cs(db)
    assert kept_cs(db)["ci"] == pytest.approx(after_import["ci"], abs=1e-12)
    assert kept_cs(db)["n_pairs_complete"] == after_import["n_pairs_complete"] == served + 30
    # the judge rescores every pair (its mean moves every term): forgotten, rebuilt, the same again
    import_lmra(db, "s", write_jsonl(tmp_path / "l2.jsonl", [{"item_id": i, "model": "j", "score": -s / 2}
                                                            for i, s in study.items()]))
    assert kept_cs(db) is None
    stopping.check(db, "s")
    serve_some(db, study, ["r0", "r1", "r2"], 30, seed=3, now=5000.0)
    assert kept_cs(db)["ci"] == pytest.approx(full_cs(db)["ci"], abs=1e-12)
    assert full_cs(db)["ci"] != after_import["ci"]


def test_a_second_judge_leaves_the_rule_on_the_main_one(db, study, tmp_path):
    configure_study(db, "s", target_ci_width=0.01, main_judge="j")
    import_lmra(db, "s", write_jsonl(tmp_path / "a.jsonl", [{"item_id": i, "model": "a-first", "score": 1.0}
                                                           for i in study]))
    onboard(db, load_study(db, "s"), ["r0", "r1"])
    stopping.check(db, "s")
    serve_some(db, study, ["r0", "r1"], 200)
    numbers = study_numbers(db, "s", n_boot=0).to_dict()
    assert numbers["lmra"]["model"] == "j" and numbers["harm"]["ppi"]["cs"]["n_pairs_complete"] >= 20
    assert running_store.state(db, "s")["basis"]["judge"] == "j"
    assert kept_cs(db)["ci"] == pytest.approx(numbers["harm"]["ppi"]["cs"]["ci"], abs=1e-12)


@pytest.mark.both_backends
def test_two_workers_completing_pairs_at_once_keep_the_order_the_ratings_were_stored_in(db, db_path, study):
    configure_study(db, "s", target_ci_width=0.01)
    onboard(db, load_study(db, "s"), ["r0", "r1", "r2", "r3"])
    stopping.check(db, "s")
    failures = []

    def worker(raters, seed):
        handle = open_db(db_path)
        try:
            serve_some(handle, study, raters, 120, seed=seed)
        except Exception as e:
            failures.append(e)
        finally:
            handle.close()

    threads = [threading.Thread(target=worker, args=(["r0", "r1"], 4)),
               threading.Thread(target=worker, args=(["r2", "r3"], 5))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    full = full_cs(db)
    assert full["n_pairs_complete"] >= 60
    assert kept_cs(db)["n_pairs_complete"] == full["n_pairs_complete"]
    assert kept_cs(db)["ci"] == pytest.approx(full["ci"], abs=1e-12)


def test_an_active_draw_weights_each_kept_term_by_its_recorded_chance(db, tmp_path):
    """Pairs drawn where the judge is least sure (`study sample --active`): each term weighted by
    1/its chance, bounded by the least chance's weight; no without-replacement form."""
    rng = np.random.default_rng(11)
    sure = rng.uniform(0.4, 0.98, PAIRS)
    create_study(db, "s", "harmful_stereotype", raters_per_item=1, seed=3)
    import_items(db, "s", write_jsonl(tmp_path / "p.jsonl", [{"id": f"p{k:03d}", **PAIR} for k in range(PAIRS)]))
    import_lmra(db, "s", write_jsonl(tmp_path / "l.jsonl", [
        {"item_id": f"p{k:03d}", "model": "j", "p_a": (1 - c) / 2, "p_b": (1 - c) / 2, "p_c": c,
         "q_a": (1 - c) / 2, "q_b": (1 - c) / 2, "q_c": c} for k, c in enumerate(sure)]))
    draw_active_sample(db, "s", 80, seed=1)
    configure_study(db, "s", status="open", target_ci_width=0.01)
    judge = dict(db.execute("SELECT item_id, score FROM lmra_scores").fetchall())
    onboard(db, load_study(db, "s"), ["r0", "r1"])
    stopping.check(db, "s")
    serve_some(db, judge, ["r0", "r1"], 70)
    kept, full = kept_cs(db), full_cs(db)
    chances = [c for (c,) in db.execute("SELECT inclusion_probability FROM items WHERE inclusion_probability IS NOT NULL")]
    assert max(chances) / min(chances) > 1.5                        # the chances really differ
    assert running_store.state(db, "s")["basis"]["population"] is None
    assert kept["n_pairs_complete"] == full["n_pairs_complete"] >= 40
    assert kept["ci"] == pytest.approx(full["ci"], abs=1e-12)
