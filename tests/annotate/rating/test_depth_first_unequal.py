"""Depth-first with unequal fill counts (QA stop 65; follow-up to "discrim-eval's unequal fills", issue 54).
A new item opens only when no started one is open to the rater: with templates of unequal size the rule that
spreads the fills over raters served fresh items before started ones (a second rater got three new items
before the first rater's), so raters capped at a few items rated items that never completed. Driven through
the session functions the app serves with; the check of each serve is computed here, from what was served.
Raters coming one after another: each cohort (the raters per item in order of arrival, store/loads.Cohort) has
finished before the next starts, so depth-first within the cohort is depth-first over the study. Raters rating at
once: depth-first within each cohort, every cohort rating the same items, and the study complete with the plan."""
import json
import random
from collections import Counter

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.annotate.rating import session
from fairval.store import items as item_store

ANSWER = {"quality": "4", "yes_positive": "5"}
pytestmark = pytest.mark.both_backends


def council_file(folder, sizes: dict[int, int]):
    """discrim-eval's fields (decision_question_id an int, filled_template a string), `sizes` fills per question."""
    rows, k = [], 0
    for question, n in sizes.items():
        for _ in range(n):
            rows.append({"id": f"t{k}", "decision_question_id": question,
                         "filled_template": f"Should the council approve request number {k}?"})
            k += 1
    path = folder / "council.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def serve_in_turn(db, name: str, raters: list[str], r: int) -> dict[str, list[str]]:
    """Each rater in turn is served (and answers) to the end. At every serve the served item is checked: if
    nobody else had it, no item started by another rater, still short of `r` raters, was open to this one
    under the template rule (never two fills of one template in a row)."""
    study = load_study(db, name)
    template = {it["item_id"]: it["data"]["decision_question_id"] for it in item_store.list_items(db, name)}
    assert len(set(template.values())) > 1
    taken: Counter = Counter()
    got: dict[str, list[str]] = {}
    now = 0.0
    for rater in raters:
        session.arrive(db, name, rater, source="link")
        session.give_consent(db, name, rater, True)
        session.finish_instructions(db, name, rater)
        got[rater] = []
        while True:
            now += 1.0
            served = session.serve_next_item(db, study, rater, now=now)
            if served is None:
                break
            mine = got[rater]
            last = template[mine[-1]] if mine else None
            passed_over = [i for i, n in taken.items() if 0 < n < r and i not in mine and template[i] != last]
            assert taken[served.item_id] > 0 or not passed_over, (rater, mine, served.item_id, passed_over)
            mine.append(served.item_id)
            taken[served.item_id] += 1
            session.record_answer(db, study, rater, served.item_id, ANSWER, now=now)
    return got


def test_qa_council_five_and_three_second_rater_gets_the_first_raters_items(db, tmp_path):
    create_study(db, "dfs", "template_quality", raters_per_item=2)
    import_items(db, "dfs", council_file(tmp_path, {0: 5, 95: 3}))
    got = serve_in_turn(db, "dfs", ["a1", "a2"], r=2)
    a1, a2 = got["a1"], got["a2"]
    assert len(a1) >= 2
    # a1's items alternate the two questions, so a2 can take every one of them before anything new
    assert set(a2[:len(a1)]) == set(a1), got


def test_qa_council_capped_raters_overlap(db, tmp_path):
    create_study(db, "cap", "template_quality", raters_per_item=2)
    import_items(db, "cap", council_file(tmp_path, {0: 5, 95: 3}))
    configure_study(db, "cap", max_items_per_rater=3)
    got = serve_in_turn(db, "cap", ["a1", "a2"], r=2)
    assert [len(v) for v in got.values()] == [3, 3] and set(got["a1"]) == set(got["a2"]), got


def test_discrim_eval_layout_capped_raters_complete_items(db, discrim_eval):
    create_study(db, "de", "template_quality", raters_per_item=3)
    for path in discrim_eval:
        import_items(db, "de", path)
    sizes = sorted(Counter(it["data"]["decision_question_id"] for it in item_store.list_items(db, "de")).values())
    assert sizes == [10, 15]                          # the published excerpt's split, and the project's own
    configure_study(db, "de", max_items_per_rater=4)
    got = serve_in_turn(db, "de", ["r1", "r2", "r3"], r=3)
    counts = Counter(i for items in got.values() for i in items)
    assert sum(counts.values()) == 12 and max(counts.values()) == 3, got    # QA saw 12 items, none twice


def serve_at_once(db, name: str, raters: int, at_once: int, seed: int, r: int):
    """`raters` raters, `at_once` of them rating at a time in a random turn order (a new one arrives as one
    finishes), each served to the end. Returns each rater's items in order and the raters in order of their
    first item (the order of arrival the cohorts are counted in). Checks every serve of a fresh item: no item a
    rater of the same cohort (r raters in that order) started, short of r raters and unseen, was open to them
    under the template rule."""
    study = load_study(db, name)
    template = {it["item_id"]: it["data"]["decision_question_id"] for it in item_store.list_items(db, name)}
    rng, now, taken = random.Random(seed), 0.0, Counter()
    got: dict[str, list[str]] = {}
    first_served: list[str] = []
    active: list[str] = []
    while active or len(got) < raters:
        while len(active) < at_once and len(got) < raters:
            rater = f"p{len(got):02d}"
            session.arrive(db, name, rater, source="link")
            session.give_consent(db, name, rater, True)
            session.finish_instructions(db, name, rater)
            got[rater] = []
            active.append(rater)
        rater = rng.choice(active)
        now += 1.0
        served = session.serve_next_item(db, study, rater, now=now)
        if served is None:
            active.remove(rater)
            continue
        if not got[rater]:
            first_served.append(rater)
        mine = got[rater]
        k = first_served.index(rater) // r
        cohort = set(first_served[k * r:(k + 1) * r]) - {rater}
        last = template[mine[-1]] if mine else None
        ours = [i for i, n in taken.items() if 0 < n < r and i not in mine and template[i] != last
                and any(i in got[p] for p in cohort)]
        assert taken[served.item_id] > 0 or not ours, (rater, mine, served.item_id, ours)
        mine.append(served.item_id)
        taken[served.item_id] += 1
        session.record_answer(db, study, rater, served.item_id, ANSWER, now=now)
    return got, first_served


@pytest.mark.parametrize("at_once, seed", [(3, 11), (3, 12), (5, 13)])
def test_raters_at_once_capped_complete_their_cohorts_items(db, discrim_eval, at_once, seed):
    """QA's case with the raters rating at once (as on Prolific): 6 raters capped at 4 items each rate 8 items
    three times each (two cohorts of 3, each the same 4 items), none once or twice."""
    create_study(db, "de", "template_quality", raters_per_item=3, seed=seed)
    for path in discrim_eval:
        import_items(db, "de", path)
    configure_study(db, "de", max_items_per_rater=4)
    got, order = serve_at_once(db, "de", raters=6, at_once=at_once, seed=seed, r=3)
    counts = Counter(i for items in got.values() for i in items)
    assert sorted(counts.values()) == [3] * 8, got
    for k in (0, 3):
        assert len({frozenset(got[p]) for p in order[k:k + 3]}) == 1, (order, got)


@pytest.mark.parametrize("at_once, seed", [(3, 21), (4, 22), (5, 23), (5, 24)])
def test_raters_at_once_complete_the_study_with_the_plan(db, discrim_eval, at_once, seed):
    """15 + 10 fills, 3 ratings each: the plan's 15 raters (3 * (15 - 10), counted here), rating 3 to 5 at once,
    complete every item, each served 5 items (3 fills of the larger template between 2 of the smaller), each
    cohort of 3 consecutive arrivals the same 5 items."""
    create_study(db, "de", "template_quality", raters_per_item=3, seed=seed)
    for path in discrim_eval:
        import_items(db, "de", path)
    template = {it["item_id"]: it["data"]["decision_question_id"] for it in item_store.list_items(db, "de")}
    sizes = sorted(Counter(template.values()).values())
    planned = 3 * (sizes[1] - sizes[0])
    assert planned == 15
    got, order = serve_at_once(db, "de", raters=planned, at_once=at_once, seed=seed, r=3)
    assert Counter(i for items in got.values() for i in items) == dict.fromkeys(template, 3), got
    assert [len(items) for items in got.values()] == [5] * planned, got
    for k in range(0, planned, 3):
        assert len({frozenset(got[p]) for p in order[k:k + 3]}) == 1, (order, got)
