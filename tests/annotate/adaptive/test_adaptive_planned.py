"""The adaptive design's anytime interval is tuned to where a study with a target width is expected to stop
(issue 53), not to all N pairs: the Gaussian-mixture boundary of the asymptotic part is narrowest at its t*,
and tuned to N a study of 2,000 pairs stopping after ~150 decided pairs paid a wider interval there.

The expected stop is written here in closed form, independently of analysis.sequential: with ρ² tuned to t
(t ρ² + 1 = u, u − log u = 1 − 2 log α, u = −W₋₁(−α²/e)), the half-width of the unit-variance boundary at t is
√(2u log(√u/α) / ((u − 1) t)), so a study whose terms spread s √(N/B) per decided pair (s = 0.3) is W wide at
t = 8 s² (N/B) u log(√u/α) / ((u − 1) W²), with α = 0.025 (the asymptotic part's half of 5%), cut to [30, N]."""
import math

import numpy as np
import pytest
from scipy.special import lambertw

from fairval.analysis.running_adaptive import planned_pairs
from fairval.annotate.adaptive import next_pair as adaptive
from fairval.annotate.crowd import stopping
from fairval.annotate.material.importers import import_items, import_lmra
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.annotate.rating import session
from fairval.annotate.results.numbers import study_numbers
from fairval.store import running as running_store
from tests.annotate.adaptive.adaptive_worlds import world
from tests.conftest import write_jsonl

ALPHA_PART, SPREAD = 0.025, 0.3


def expected_stop(pairs: int, budget: int, width: float) -> int:
    u = float(-lambertw(-ALPHA_PART ** 2 / math.e, -1).real)
    t = 8 * SPREAD ** 2 * (pairs / budget) * u * math.log(math.sqrt(u) / ALPHA_PART) / ((u - 1) * width ** 2)
    return int(min(max(math.ceil(t - 1e-9), 30), pairs))


@pytest.mark.parametrize(("pairs", "budget", "width"), [(400, 200, 0.15), (5000, 2500, 0.15), (2000, 200, 0.1),
                                                        (200, 150, 0.15), (1000, 500, 0.5), (300, 30, 0.05)])
def test_the_planned_pairs_are_the_expected_stop_at_the_target_width(pairs, budget, width):
    assert planned_pairs(budget, pairs, width) == expected_stop(pairs, budget, width)


def test_without_a_target_width_the_sequence_is_tuned_to_every_pair():
    assert planned_pairs(200, 400, None) == 400
    assert expected_stop(5000, 2500, 0.15) == 345        # where a study of 5,000 pairs stops, not at the 5,000


def _study(db, tmp_path, target: float | None):
    w = world(np.random.default_rng(11), 160, related=True)
    ids = [f"p{k:04d}" for k in range(160)]
    pair = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
    create_study(db, "s", "harmful_stereotype", raters_per_item=2, seed=4, target_ci_width=target)
    import_items(db, "s", write_jsonl(tmp_path / "p.jsonl", [{"id": i, **pair} for i in ids]))
    import_lmra(db, "s", write_jsonl(tmp_path / "l.jsonl", [
        {"item_id": i, "model": "j", "p_a": a, "p_b": b, "p_c": c, "q_a": b, "q_b": a, "q_c": c}
        for i, (a, b, c) in zip(ids, w["r"])]))
    adaptive.start(db, "s", 70, now=0.0)
    configure_study(db, "s", status="open")
    return dict(zip(ids, w["truth"]))


def test_a_study_with_a_target_records_its_expected_stop_and_both_intervals_use_it(db, tmp_path):
    truth = _study(db, tmp_path, target=0.3)
    s = load_study(db, "s")
    planned = expected_stop(160, 70, 0.3)
    assert 30 < planned < 160
    assert s.recorded.drawn()["planned"] == planned
    rng = np.random.default_rng(3)
    raters = [f"r{k}" for k in range(4)]
    for rater in raters:
        session.arrive(db, "s", rater, source="link")
        session.give_consent(db, "s", rater, True)
        session.finish_instructions(db, "s", rater)
    now, compared, answers = 1000.0, 0, 0
    served = {r: session.serve_next_item(db, s, r, now=now) for r in raters}
    while load_study(db, "s").status == "open" and any(served.values()):
        for rater in raters:
            item = served[rater]
            if item is None:
                continue
            meant = "ABC"[rng.choice(3, p=truth[item.item_id])]
            shown = {"A": "B", "B": "A"}.get(meant, meant) if item.flipped else meant
            session.record_answer(db, s, rater, item.item_id, {"harm": shown}, now=now, serve_next=False)
            now += 7
            if stopping.check(db, "s", now=now) is not None:
                break
            answers += 1
            if answers < 4:         # (the judge card's confidence block fails on a study of one rating)
                served[rater] = session.serve_next_item(db, s, rater, now=now)
                continue
            full = study_numbers(db, "s", n_boot=0).to_dict()["harm"]["ppi"]["cs"]
            kept = running_store.interval(db, "s")
            assert full["planned"] == planned
            if full.get("ci") is not None and full["n_decided"] > 30:       # the asymptotic part in use
                assert kept["ci"] == pytest.approx(full["ci"], abs=1e-12)   # the stop's state is tuned the same way
                compared += 1
            served[rater] = session.serve_next_item(db, s, rater, now=now)
    stop = load_study(db, "s").recorded.stopped
    assert compared >= 5 and stop is not None and stop["ci"][1] - stop["ci"][0] <= 0.3


def test_a_target_set_after_the_design_started_leaves_it_tuned_to_every_pair(db, tmp_path):
    _study(db, tmp_path, target=None)
    configure_study(db, "s", target_ci_width=0.4)           # later: the sequence's tuning is not changed after the fact
    assert load_study(db, "s").recorded.drawn()["planned"] == 160
