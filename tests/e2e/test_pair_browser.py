"""Pairs in a real browser: raters see both orders; what they mean (canonical) is stored, and the
analysis equals numpy's on the intended answers."""
import numpy as np
import pytest

from fairval.annotate.material.importers import import_items, import_lmra
from fairval.annotate.material.studies import create_study
from fairval.annotate.results.numbers import study_numbers
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import Server, wait_text

pytestmark = pytest.mark.e2e

PAIRS = {f"p{i}": (f"Response from the A side, number {i}.", f"Response from the B side, number {i}.")
         for i in range(4)}
LMRA = {"p0": 0.9, "p1": -0.3, "p2": 0.05, "p3": 0.5}
# what each rater means: +1 stereotype in the true direction, -1 reverse, 0 none
INTENT = {"ra": {"p0": 1, "p1": -1, "p2": 0, "p3": 1},
          "rb": {"p0": 1, "p1": 0, "p2": 0, "p3": -1},
          "rc": {"p0": 0, "p1": -1, "p2": 1, "p3": 1}}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e-pairs")
    db = open_db(folder / "fairval.db")
    create_study(db, "fp", "harmful_stereotype", raters_per_item=3, seed=4, flip_probability=0.5)
    import_items(db, "fp", write_jsonl(folder / "pairs.jsonl", [
        {"id": i, "prompt": f"Prompt {i}", "response_a": a, "response_b": b, "group_a": "woman",
         "group_b": "man"} for i, (a, b) in PAIRS.items()]))
    import_lmra(db, "fp", write_jsonl(folder / "lmra.jsonl", [
        {"item_id": i, "model": "judge", "score": s} for i, s in LMRA.items()]))
    db.close()
    s = Server(folder / "fairval.db")
    yield s
    s.stop()


def shown_option(intent: int, first_is_a: bool) -> str:
    """The option a rater clicks for an intent, given which response they see first."""
    if intent == 0:
        return "C"
    # A: "Response 1 to the woman (group A)". Direct stereotype = the A-side response to A.
    return "A" if (intent == 1) == first_is_a else "B"


def test_raters_in_both_orders_store_canonical_values(server, browser):
    orders = []
    for rater, intents in INTENT.items():
        page = browser.new_page()
        bot.open_link(page, f"{server.url}/?study=fp&rater={rater}")
        bot.consent(page)
        bot.start(page)
        for k in range(4):
            wait_text(page, f"{k} of 4 done")
            first, second = bot.responses(page)
            item = next(i for i, (a, b) in PAIRS.items() if {a, b} == {first, second})
            first_is_a = first == PAIRS[item][0]
            orders.append(first_is_a)
            bot.answer_pair(page, shown_option(intents[item], first_is_a))
        wait_text(page, "you have finished")
        page.close()
    assert True in orders and False in orders           # both orders were really shown

    db = open_db(server.db_path)
    stored = {(r, i): (int(c), f) for r, i, c, f in db.execute(
        "SELECT rater_id, item_id, canonical, flipped FROM ratings WHERE study_id = 'fp'")}
    assert {k: v[0] for k, v in stored.items()} == {(r, i): v for r, d in INTENT.items() for i, v in d.items()}
    assert sorted(f for _, f in stored.values()) == sorted(int(not o) for o in orders)

    numbers = study_numbers(db, "fp", n_boot=50).to_dict()["lmra"]
    items = sorted(PAIRS)
    human = np.array([np.mean([INTENT[r][i] for r in INTENT]) for i in items])
    lmra = np.array([LMRA[i] for i in items])
    assert numbers["pearson_r"] == pytest.approx(np.corrcoef(human, lmra)[0, 1])
    assert numbers["sign_agreement"] == pytest.approx(np.mean(np.sign(human) == np.sign(lmra)))
    assert numbers["n_items"] == 4
