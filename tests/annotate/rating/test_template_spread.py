"""The end of a rater's serving order in a study of unequal templates (issue 47): with never two fills of
one template in a row, a rater whose items left are all fills of the template just had would get "no items
left" while the progress line promised more. Through the session functions, on SQLite and PostgreSQL: every
rater gets as many items as any order without two fills in a row gives them (a brute-force search in the
test), or, where the rule binds, their share of the study's spread (issue 54), and the progress line's
total, read before the first item, is that number all the way."""
import itertools
from functools import cache

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.annotate.rating import rater_progress, session
from tests.conftest import write_jsonl

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server

RATERS = 3
ANSWER = {"quality": "4", "yes_positive": "4"}


@cache
def longest(counts: tuple[int, ...], last: int) -> int:
    """The longest sequence from `counts` fills per template with no two of one template in a row, after a
    fill of template `last` (-1: none), found by trying every next template."""
    return max((1 + longest((*counts[:t], n - 1, *counts[t + 1:]), t)
                for t, n in enumerate(counts) if n and t != last), default=0)


def spread_share(fills: tuple[int, ...], cap: int | None) -> float:
    """Where the largest template has two or more fills over all the others together, the rule needs
    R = max(r, r * (n_1 - others), r * n_1 / cap) raters, and serving spreads the others' r * others ratings
    over them (issue 54): the first raters get ceil(r * others / R) of them, and one more of the largest
    each, so no rater strands the rest. Elsewhere no spread (infinity)."""
    n_1, others = max(fills), sum(fills) - max(fills)
    if n_1 - others < 2:
        return float("inf")
    need = max(RATERS, RATERS * (n_1 - others), -(-RATERS * n_1 // cap) if cap else 0)
    return 2 * -(-RATERS * others // need) + 1


def onboard(db, study_id, rater):
    session.arrive(db, study_id, rater, source="link")
    session.give_consent(db, study_id, rater, True)
    session.finish_instructions(db, study_id, rater)


# unequal templates; with a cap of K fills a template; items of no template (None) beside them
@pytest.mark.parametrize("fills, cap, singles", [((4, 2, 1), None, 0), ((5, 1), None, 0), ((5, 1), None, 2),
                                                 ((6, 3, 1), 3, 0), ((3, 3, 2), None, 1)])
def test_every_rater_gets_every_item_an_order_without_two_in_a_row_allows(db, tmp_path, fills, cap, singles):
    for seed in range(6):                           # six serving orders
        name = f"s{seed}"
        study = create_study(db, name, "template_quality", seed=seed, raters_per_item=RATERS,
                             max_fills_per_template=cap)
        rows = [{"id": f"t{t}-f{f}", "filled_template": f"Template {t}, applicant {f}", "decision_question_id": t}
                for t, n in enumerate(fills) for f in range(n)]
        rows += [{"id": f"own{k}", "filled_template": f"Question {k}"} for k in range(singles)]
        import_items(db, name, write_jsonl(tmp_path / f"{name}.jsonl", rows))
        expected = singles + min(longest(tuple(n if cap is None else min(n, cap) for n in fills), -1),
                                 spread_share(fills, cap))
        raters = [f"r{k}" for k in range(RATERS)]
        for r in raters:
            onboard(db, name, r)
        promised = {r: [rater_progress.progress(db, study, r, now=0.0)] for r in raters}
        got = {r: [] for r in raters}
        active, now = list(raters), 0.0
        while active:                               # the raters take turns, each item open to each of them
            for r in list(active):
                now += 1
                served = session.serve_next_item(db, study, r, now=now)
                if served is None:
                    active.remove(r)
                    continue
                promised[r].append(rater_progress.progress(db, study, r, now=now))
                session.record_answer(db, study, r, served.item_id, ANSWER, now=now)
                got[r].append(served.item_id.split("-")[0] if "-" in served.item_id else None)
        for r in raters:
            templates = [t for t in got[r] if t is not None]
            assert len(got[r]) == expected, (seed, r, got[r])
            assert all(a != b for a, b in itertools.pairwise(templates)), (seed, r, got[r])
            assert cap is None or max(templates.count(t) for t in set(templates)) <= cap
            assert {p.expected for p in promised[r]} == {expected}, (seed, r, promised[r])
