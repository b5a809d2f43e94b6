"""A rater's Submit is one write transaction (issue 58), through the real rater page (AppTest runs app.py):
the answer, the stopping rule's check when it completes a pair, the stop itself when the rule is met, and the
rater's next pair, counted as SQLite sees them: the BEGIN statements on the page's own connection. Before,
a study with a rule stored the answer in one transaction and served the next pair in another, after a check
made by the page."""
import pytest

from fairval.annotate.crowd import stopping
from fairval.annotate.material.importers import import_items, import_lmra
from fairval.annotate.material.studies import create_study, load_study
from fairval.store import audit
from fairval.store import running as running_store
from tests.conftest import write_jsonl
from tests.ui.apptest import current_item, rater_app, submit, titles

SURE = {"p_a": 0.02, "p_b": 0.02, "p_c": 0.96, "q_a": 0.02, "q_b": 0.02, "q_c": 0.96}
PAIRS, TARGET = 60, 1.2


@pytest.fixture
def pairs(db, tmp_path):
    """Study "s": 60 pairs, one rater each, the judge "j" sure of each; a stopping rule at width 1.2."""
    pair = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
    create_study(db, "s", "harmful_stereotype", raters_per_item=1, seed=3, target_ci_width=TARGET)
    import_items(db, "s", write_jsonl(tmp_path / "p.jsonl", [{"id": f"p{k:02d}", **pair} for k in range(PAIRS)]))
    import_lmra(db, "s", write_jsonl(tmp_path / "l.jsonl", [{"item_id": f"p{k:02d}", "model": "j", **SURE}
                                                            for k in range(PAIRS)]))
    assert stopping.check(db, "s") is None                   # the first check builds the kept interval
    return db


def test_each_submit_is_one_write_transaction_the_one_that_stops_the_study_too(pairs):
    at = rater_app(study="s", rater="one")
    at.button(key="consent-yes").click().run()
    at.button(key="start").click().run()
    begun: list[str] = []
    at.session_state["_fairval_db"][1].conn.set_trace_callback(
        lambda sql: begun.append(sql) if sql.lstrip().upper().startswith("BEGIN") else None)
    answered = 0
    while True:
        assert answered < PAIRS, "the study never stopped"
        begun.clear()
        item = current_item(at)
        submit(at, {"harm": "C"})
        answered += 1
        assert len(begun) == 1, (answered, begun)           # answer, check, (stop,) next pair: one transaction
        if titles(at) == ["This study is paused"]:
            break
        kept = running_store.interval(pairs, "s")            # (a stop's settings forget it: rebuilt when asked)
        assert kept["n_pairs_complete"] == answered          # the check's interval moved with the answer
        assert current_item(at) != item                      # the next pair, held in that transaction
    study = load_study(pairs, "s")
    stopped = study.recorded.stopped
    assert study.status == "paused" and stopped["n_pairs_complete"] == answered > 1
    assert stopped["ci"][1] - stopped["ci"][0] <= TARGET
    # the stopping Submit served nothing new: the rater holds no pair, and every pair served was answered
    assert pairs.scalar("SELECT COUNT(*) FROM assignments WHERE study_id = 's'") == answered
    actions = [r["action"] for r in audit.entries(pairs, "s")]
    assert actions.count("study.stop") == 1 and actions.count("study.pause") == 1
