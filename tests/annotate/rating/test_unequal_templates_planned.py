"""Studies of unequal templates planned, not stranded (issue 54). discrim-eval's layout: 25 rows, 15 fills of
one decision_question_id and 10 of another. Never two fills of one template in a row, a rater takes at most
one more fill of the larger template than of the smaller, so 3 ratings of each fill need 3 * (15 - 10) = 15
raters (the bound, counted in the test from the rows). `study show` says that number before launch; the
serving, driven here through the session functions the app uses, completes the study with it (at most one
more), one rater after another or several at once, and serves no rater a single item."""
import itertools
import json
import random
import re
from collections import Counter

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.annotate.rating import session
from fairval.store import ratings as rating_store

ANSWER = {"quality": "4", "yes_positive": "5"}
RATERS_PER_ITEM = 3
pytestmark = pytest.mark.both_backends


def rows_of(paths) -> list[dict]:
    return [json.loads(line) for p in paths for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]


def bound(rows: list[dict], r: int) -> int:
    """The fewest raters the rule allows, from the rows: each rater's fills of the largest template are at most
    one more than their fills of the others, so r * n_largest <= r * n_others + raters; and at least r."""
    sizes = sorted(Counter(str(row["decision_question_id"]) for row in rows).values(), reverse=True)
    return max(r, r * (sizes[0] - sum(sizes[1:])))


def stated_raters(db_path, name: str) -> int:
    out = CliRunner().invoke(cli, ["--db", str(db_path), "study", "show", name])
    assert out.exit_code == 0, out.output
    found = re.search(r"raters needed: (\d+)", out.output)
    assert found, out.output
    return int(found.group(1))


def run_study(db, name: str, *, at_once: int, seed: int, places: int, limit: int) -> dict[str, list[str]]:
    """As on Prolific with `places` places: raters arrive (consent, instructions) while fewer than `at_once`
    are rating and places are left; a random one of those takes a turn (serve, answer). When every rater is
    done and ratings are missing, the researcher adds a place, up to `limit`. Returns each rater's items in
    the order served."""
    study = load_study(db, name)
    rng = random.Random(seed)
    got: dict[str, list[str]] = {}
    active: list[str] = []
    now = 0.0
    needed = len(rows_in(db, name)) * RATERS_PER_ITEM
    while rating_store.ratings_frame(db, name)[["item_id", "rater_id"]].drop_duplicates().shape[0] < needed:
        if not active and len(got) >= places:
            places += 1                                   # the study is short: one more place
        while len(active) < at_once and len(got) < min(places, limit):
            rater = f"rater{len(got):02d}"
            session.arrive(db, name, rater, source="link")
            session.give_consent(db, name, rater, True)
            session.finish_instructions(db, name, rater)
            assert session.next_step(db, study, rater, now=now) == "item"
            got[rater] = []
            active.append(rater)
        if not active:
            break
        rater = rng.choice(active)
        now += 1.0
        served = session.serve_next_item(db, study, rater, now=now)
        if served is None:
            active.remove(rater)
            continue
        got[rater].append(served.item_id)
        session.record_answer(db, study, rater, served.item_id, ANSWER, now=now)
    return got


def rows_in(db, name):
    from fairval.store import items as item_store
    return item_store.list_items(db, name)


@pytest.mark.parametrize("at_once, seed", [(1, 0), (3, 1), (3, 2), (5, 3)])
def test_discrim_eval_layout_completes_with_the_raters_study_show_states(db, db_path, discrim_eval, at_once, seed):
    create_study(db, "de", "template_quality", raters_per_item=RATERS_PER_ITEM, seed=seed)
    for path in discrim_eval:
        import_items(db, "de", path)
    rows = rows_of(discrim_eval)
    template = {item["item_id"]: str(item["data"]["decision_question_id"]) for item in rows_in(db, "de")}
    assert len(rows) == 25 and sorted(Counter(template.values()).values()) == [10, 15]
    stated = stated_raters(db_path, "de")                       # before launch
    assert stated == bound(rows, RATERS_PER_ITEM)
    got = run_study(db, "de", at_once=at_once, seed=seed, places=stated, limit=stated + 5)
    judged = rating_store.ratings_frame(db, "de")[["item_id", "rater_id"]].drop_duplicates()
    assert judged.groupby("item_id").size().to_dict() == dict.fromkeys(template, RATERS_PER_ITEM)   # complete
    assert len(got) <= stated + 1, {r: len(items) for r, items in got.items()}
    assert min(len(items) for items in got.values()) >= 2, {r: len(items) for r, items in got.items()}
    for rater, items in got.items():                              # the rule itself still holds
        fills = [template[i] for i in items]
        assert all(a != b for a, b in itertools.pairwise(fills)), (rater, fills)


def test_fills_back_to_back_need_only_the_raters_per_item(db, db_path, discrim_eval):
    create_study(db, "b2b", "template_quality", raters_per_item=RATERS_PER_ITEM)
    for path in discrim_eval:
        import_items(db, "b2b", path)
    configure_study(db, "b2b", fills_back_to_back=True)
    assert stated_raters(db_path, "b2b") == RATERS_PER_ITEM
    got = run_study(db, "b2b", at_once=1, seed=0, places=RATERS_PER_ITEM, limit=RATERS_PER_ITEM + 2)
    assert [len(items) for items in got.values()] == [25] * RATERS_PER_ITEM


def test_a_template_too_large_for_the_rule_is_said_before_launch(db, db_path, tmp_path):
    from tests.conftest import write_jsonl
    rows = [{"filled_template": f"Question {q}, applicant {k}.", "decision_question_id": q, "age": 30.0 + k}
            for q, n in ((7, 8), (9, 2)) for k in range(n)]
    create_study(db, "lop", "template_quality", raters_per_item=RATERS_PER_ITEM)
    import_items(db, "lop", write_jsonl(tmp_path / "lop.jsonl", rows))
    out = CliRunner().invoke(cli, ["--db", str(db_path), "study", "show", "lop"]).output
    # 3 * (8 - 2) = 18 raters; the 6 ratings of the smaller template part at most 6 raters' fills: 12 take one
    assert "raters needed: 18" in out and "12 of them would rate a single item" in out
    assert "fills_back_to_back=true" in out


def test_plan_and_the_methods_paragraph_say_the_rule(db, db_path, discrim_eval):
    from fairval.annotate.outputs.methods import methods_text
    create_study(db, "pl", "template_quality", raters_per_item=RATERS_PER_ITEM)
    for path in discrim_eval:
        import_items(db, "pl", path)
    expected = bound(rows_of(discrim_eval), RATERS_PER_ITEM)
    runner = CliRunner()
    out = runner.invoke(cli, ["--db", str(db_path), "plan", "pl"])
    assert out.exit_code == 0 and f"raters needed: {expected}" in out.output, out.output
    as_json = runner.invoke(cli, ["--db", str(db_path), "plan", "pl", "--json"])
    assert json.loads(as_json.output)["raters_needed"] == expected
    assert "No rater was served two fills of one template (decision question) in a row." in methods_text(db, "pl")[0]
    configure_study(db, "pl", fills_back_to_back=True)
    text = methods_text(db, "pl")[0]
    assert "could be served two fills of one template in a row" in text and "No rater was served" not in text
