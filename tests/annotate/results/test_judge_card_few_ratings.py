"""A pair study with the judge's probabilities in both orders and 0, 1 or 2 ratings by people gives its numbers
through `analyze --json`, never a crash: with one rating `confidence_block` raised a KeyError from pandas'
`get_group` (pandas 3). The card's numbers are checked against values computed here; an interval that cannot be
formed from so few ratings says so (null with a reason), never a zero-width one."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import fairval
from fairval.annotate.cli.main import cli
from tests.conftest import write_jsonl

P, Q = (0.6, 0.1, 0.3), (0.2, 0.5, 0.3)           # the judge leans A in both orders


def combined(p, q):
    p, q = [x / sum(p) for x in p], [x / sum(q) for x in q]          # each order renormalised (App. H)
    raw = [min(p[0], q[1]), min(p[1], q[0]), min(p[2], q[2])]
    return [x / sum(raw) for x in raw]


@pytest.mark.parametrize("n_ratings", [0, 1, 2])
def test_analyze_json_gives_the_numbers_with_few_ratings(db_path, tmp_path, n_ratings):
    study = fairval.open(db_path).create_study("few", task="harmful_stereotype", raters_per_item=3)
    pairs = [{"id": f"p{i}", "prompt": "Plan my week", "response_a": "x" * (20 + 7 * i), "response_b": "y" * 30,
              "group_a": "woman", "group_b": "man"} for i in range(3)]
    lmra = [{"item_id": p["id"], "model": "judge", **dict(zip(("p_a", "p_b", "p_c"), P)),
             **dict(zip(("q_a", "q_b", "q_c"), Q))} for p in pairs]
    ratings = [{"item_id": f"p{k}", "rater_id": "r0", "question": "harm", "value": "AB"[k], "flipped": 0}
               for k in range(n_ratings)]                              # rating k on pair k
    study.import_items(write_jsonl(tmp_path / "pairs.jsonl", pairs))
    study.import_lmra(write_jsonl(tmp_path / "lmra.jsonl", lmra))
    if ratings:
        study.import_ratings(write_jsonl(tmp_path / "ratings.jsonl", ratings))

    run = CliRunner().invoke(cli, ["--db", str(db_path), "analyze", "few", "--json", "--bootstrap", "200"])
    assert run.exit_code == 0, run.output + repr(run.exception)
    numbers = json.loads(run.output)
    answers = [(1, -1)[k] for k in range(n_ratings)]                     # A then B, shown unflipped
    harm = numbers["harm"]
    assert harm["n_items_human"] == n_ratings and harm["n_items_lmra"] == 3
    assert harm["human"] == (pytest.approx(sum(answers) / n_ratings, abs=1e-9) if answers else None)
    assert harm["human_ci"] is None if n_ratings < 2 else harm["human_ci"][0] < harm["human_ci"][1]
    card = numbers["lmra"]["confidence"]
    assert (card["n_pairs"], card["n_ties"]) == (n_ratings, 0)
    if n_ratings < 2:                            # no card from under 2 pairs: it says why, with no interval
        assert card["ece"] is card["ece_ci"] is card["brier"] is card["brier_ci"] is None
        assert card["reason"] and ("at least 2 pairs" in card["reason"] or n_ratings == 0), card["reason"]
        return
    r = combined(P, Q)
    conf = max(r)                                # the judge's pick is A on both pairs: one bin
    agree = sum(a == 1 for a in answers) / len(answers)
    brier = sum(sum((r[j] - ((1, -1, 0)[j] == v)) ** 2 for j in range(3)) for v in answers) / len(answers)
    assert card["ece"] == pytest.approx(abs(agree - conf), abs=1e-9)
    assert card["brier"] == pytest.approx(brier, abs=1e-9)
    for key, top in (("ece", 1.0), ("brier", 2.0)):      # two pairs: wide, in range, never zero-width
        low, high = card[f"{key}_ci"]
        assert 0.0 <= low <= card[key] <= high <= top and high > low, (key, low, high)
    assert numbers["lmra"]["length"]["judge_r"] is None and numbers["lmra"]["length"]["reason"]
