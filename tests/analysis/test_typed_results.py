"""analysis/ answers with frozen result objects (issue 56): no public function returns a bag of keys, an
interval is an Interval with its guarantee, a reason a typed Why whose English is the sentence the numbers
always printed; the plain form is made only at the edge."""
from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairval.analysis.active import active_ppi_mean, adaptive_terms, choose_floor
from fairval.analysis.interval import Interval
from fairval.analysis.judge_map import cross_validate
from fairval.analysis.planner import Pay, cheapest
from fairval.analysis.ppi import FEW_PAIRS, ppi_mean
from fairval.analysis.reasons import Why
from fairval.analysis.sequential import confidence_sequence
from fairval.analysis.trust import trust_threshold

ANALYSIS = Path(__file__).resolve().parents[2] / "analysis"

# The dict-shaped answers left, each for a reason: JSON a study or a file keeps (read back as JSON), or a
# mapping (τ, group) to frozen values.
KEPT = {
    "rule_constants": "a chance rule kept in the study's state as JSON (store/mixes.py)",
    "fit_isotonic": "the calibration map file's table, read back by apply_isotonic",
    "fit_linear": "the calibration map file's line, read back by apply_linear",
    "mix_evidence": "τ -> a frozen Evidence",
    "calibrate_by_group": "group -> a frozen Calibration",
    "accuracy_by_intended": "group -> a frozen Accuracy",
}


def _dict_shaped() -> dict[str, str]:
    """Public module-level functions of analysis/ whose return annotation is a dict, a Mapping or a
    TypedDict (or an alias of TypedDicts), by name -> annotation."""
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(ANALYSIS.glob("*.py"))}
    typed = {n.name for t in trees.values() for n in ast.walk(t) if isinstance(n, ast.ClassDef)
             and any(ast.unparse(b).endswith("TypedDict") for b in n.bases)}
    typed |= {n.targets[0].id for t in trees.values() for n in t.body if isinstance(n, ast.Assign)
              and isinstance(n.targets[0], ast.Name)
              and any(isinstance(x, ast.Name) and x.id in typed for x in ast.walk(n.value))}
    found = {}
    for tree in trees.values():
        for n in tree.body:
            if isinstance(n, ast.FunctionDef) and not n.name.startswith("_") and n.returns is not None:
                names = {x.id for x in ast.walk(n.returns) if isinstance(x, ast.Name)}
                if names & (typed | {"dict", "Dict", "Mapping"}):
                    found[n.name] = ast.unparse(n.returns)
    return found


def test_no_public_analysis_function_returns_a_bag_of_keys_but_those_kept_as_json_or_keyed_by_a_group():
    found = _dict_shaped()
    assert set(found) <= set(KEPT), {k: v for k, v in found.items() if k not in KEPT}
    assert "rule_constants" in found and "calibrate_by_group" in found        # the reading sees them


def test_ppi_answers_with_a_frozen_estimate_whose_interval_carries_its_guarantee():
    rng = np.random.default_rng(3)
    y = rng.uniform(-1, 1, 40)
    f = np.clip(y + rng.normal(0, 0.2, 40), -1, 1)
    few, many = ppi_mean(y[:10], f[:10], f[10:]), ppi_mean(y, f, rng.uniform(-1, 1, 100))
    with pytest.raises(dataclasses.FrozenInstanceError):
        few.value = 0.0                                                      # type: ignore[misc]
    assert isinstance(few.ci, Interval) and few.ci.guarantee == FEW_PAIRS == few.valid     # 10 < 30 pairs
    assert many.ci.guarantee is None and many.valid is None
    # the ppi block's keys in analyze --json's order: se only where PPI++ reported one, valid only below 30
    assert list(few.shown()) == ["value", "ci", "lambda", "n_labelled", "n_unlabelled", "se", "valid"]
    assert list(many.shown()) == ["value", "ci", "lambda", "n_labelled", "n_unlabelled", "se"]
    weighted = active_ppi_mean(y[:10], f[:10], np.full(10, 0.25), f, np.full(40, 0.25))
    assert list(weighted.shown()) == ["value", "ci", "lambda", "n_labelled", "n_unlabelled", "valid"]
    # λ written out: cov(y, f) / ((1 + n/N) var(f over all)), clipped to [0, 1] (ppi.py's docstring)
    everything = np.concatenate([f[:10], f[10:]])
    lam = np.clip(np.mean((y[:10] - y[:10].mean()) * (f[:10] - f[:10].mean())) / ((1 + 10 / 30) * everything.var(ddof=1)), 0, 1)
    assert few.lambda_ == pytest.approx(lam, abs=1e-12)


def test_the_weighted_estimates_reason_is_typed_and_reads_as_it_always_did():
    got = active_ppi_mean(np.array([0.5]), np.array([0.4]), np.array([0.5]), np.zeros(4), np.full(4, 0.5))
    assert got.value is None and got.ci is None and got.reason is not None and got.reason.why is Why.FEW_DRAWN
    assert (got.reason.fact("n"), got.reason.fact("among"), got.n_unlabelled) == (1, 4, 3)
    assert list(got.shown()) == ["value", "ci", "lambda", "n_labelled", "n_unlabelled", "reason"]
    assert str(got.reason) == ("1 drawn pair(s) with human ratings among 4; the weighted estimate needs at least 2 "
                               "and a pair left to the judge")


def test_the_sequences_trust_and_plan_answer_with_frozen_objects():
    at_two = confidence_sequence(np.zeros(2), lower=-2, upper=2)
    assert isinstance(at_two.ci, Interval) and at_two.ci.low < 0 < at_two.ci.high and at_two.reason is None
    empty = confidence_sequence(np.zeros(0), lower=-2, upper=2)
    assert empty.reason is not None and empty.reason.why is Why.NO_OBSERVATION and str(empty.reason) == "no observation yet"
    found = trust_threshold(np.linspace(1, 0.5, 60), np.ones(60, bool))
    assert found.threshold is not None and all(t.n <= 60 for t in found.tested) and isinstance(found.tested, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.threshold = None                                               # type: ignore[misc]
    table = pd.DataFrame({"pairs": [50, 100], "raters_per_pair": [2, 1], "rho_width": [0.15, 0.18],
                          "sign_width": [0.3] * 2, "harm_width": [0.2] * 2})
    best = cheapest(table, "rho", 0.2, Pay(per_judgment=0.5, per_rater=1.15, fee=0.43, judgments_per_rater=20))
    # 50 × 2 and 100 × 1 are 100 judgments by 5 raters each: the same cost, and fewer pairs win
    assert best is not None and (best.pairs, best.raters_per_pair, best.judgments, best.raters) == (50, 2, 100, 5)
    assert best.cost == pytest.approx(round((100 * 0.5 + 5 * 1.15) * 1.43, 2))


def test_the_active_designs_answers_are_frozen_objects():
    rng = np.random.default_rng(5)
    u = rng.uniform(0, 0.5, 40)
    floor = choose_floor(u, rng.normal(0, 0.3, 40), rng.uniform(0, 0.5, 200), 50)
    assert floor.floor in floor.relative_variance and floor.n_pilot == 40
    terms = adaptive_terms(np.zeros(3), np.zeros(3), np.full(3, 0.5), np.ones(3, bool), 0.0, np.full(3, 0.5))
    assert terms.terms.shape == terms.lows.shape == terms.highs.shape == (3,)
    assert (terms.lows < terms.terms).all() and (terms.terms < terms.highs).all()


def test_the_cross_validation_is_typed_and_the_calibration_map_file_keeps_its_form():
    rng = np.random.default_rng(2)
    human = rng.uniform(-1, 1, 40)
    few = cross_validate(human[:6], human[:6])
    assert few.reason is not None and few.reason.why is Why.FEW_TO_CROSS_VALIDATE
    assert few.to_dict() == {"reason": "6 pairs scored by both; 5-fold cross-validation needs 10"}
    plain = cross_validate(human + rng.normal(0, 0.1, 40), human).to_dict()
    assert list(plain) == ["folds", "n", "raw", "isotonic", "linear"] and (plain["folds"], plain["n"]) == (5, 40)
    assert all(list(plain[k]) == ["pearson_r", "mae"] for k in ("raw", "isotonic", "linear"))
