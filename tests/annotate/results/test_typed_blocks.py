"""A pair study's blocks (harm, feature_difference, lmra) are frozen dataclasses down to their intervals
(annotate.results.blocks, issue 48): read back from `analyze --json`'s plain form they give the same
form again, key for key, and no plain dict is left where a block with numbers should be."""
from __future__ import annotations

import dataclasses
import json

import pytest

from fairval.annotate.results.block import Block
from fairval.annotate.results.blocks import Anytime, Estimate, Judge, Ppi, Rate
from fairval.annotate.results.result import StudyNumbers
from tests.annotate.results.test_numbers_unchanged import EXPECTED

# keys only a block of numbers has: a plain dict holding one of them is a block left untyped
BLOCK_KEYS = {"value", "ci", "ppi", "cs", "reason", "valid", "n_pairs", "pearson_r"}


def _untyped(value, path: str) -> list[str]:
    """Paths of plain dicts that hold a block's keys, anywhere under value."""
    if isinstance(value, Block):
        return [p for f in dataclasses.fields(value) if f.name != "present"
                for p in _untyped(getattr(value, f.name), f"{path}.{f.name}")]
    if isinstance(value, dict):
        here = [path] if BLOCK_KEYS & set(value) else []
        return here + [p for k, v in value.items() for p in _untyped(v, f"{path}[{k!r}]")]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in _untyped(v, f"{path}[{i}]")]
    return []


CASES = json.loads(EXPECTED.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", [c for c in CASES if "lmra" in CASES[c] or "harm" in CASES[c]
                                  or "feature_difference" in CASES[c]])
def test_the_plain_form_reads_back_typed_and_gives_the_same_form(case):
    plain = CASES[case]
    numbers = StudyNumbers.from_dict(plain)
    assert numbers.to_dict() == plain
    assert json.loads(json.dumps(numbers.to_dict())) == plain
    for name in ("harm", "feature_difference", "lmra"):
        block = getattr(numbers, name)
        if name in plain:
            assert isinstance(block, Judge if name == "lmra" else Rate)
            assert _untyped(block, name) == []
        else:
            assert block is None


def test_the_leaves_are_typed_where_the_numbers_are():
    numbers = StudyNumbers.from_dict(CASES["pairs-uniform"])
    harm, plain = numbers.harm, CASES["pairs-uniform"]["harm"]
    assert isinstance(harm.ppi, Ppi) and isinstance(harm.ppi.cs, Anytime) and isinstance(harm.difference, Estimate)
    assert harm.ppi.lambda_ == plain["ppi"]["lambda"]            # `lambda` is not a Python name
    assert tuple(harm.ppi.cs.ci) == tuple(plain["ppi"]["cs"]["ci"])
    group, row = next(iter(harm.by_pair_group.groups.items()))
    assert row.ppi.value == plain["by_pair_group"]["groups"][group]["ppi"]["value"]
    gender = numbers.lmra.by_rater_group["gender"]
    assert {g: j.p_holm for g, j in gender.items()} == {
        g: c["p_holm"] for g, c in CASES["pairs-uniform"]["lmra"]["by_rater_group"]["gender"].items()}
    with pytest.raises(dataclasses.FrozenInstanceError):
        harm.ppi.cs.ci = None


def test_a_key_kept_as_null_and_a_key_left_out_stay_apart():
    """`asymptotic_from` is null in the uniform sign agreement's interval and absent where there is no
    interval yet; `reason` is there only when a number is missing."""
    there = Anytime.from_dict({"value": None, "ci": None, "n_pairs_complete": 0, "asymptotic_from": None})
    absent = Anytime.from_dict({"value": None, "ci": None, "n_pairs_complete": 0, "reason": "no pair"})
    assert there.to_dict() == {"value": None, "ci": None, "n_pairs_complete": 0, "asymptotic_from": None}
    assert absent.to_dict() == {"value": None, "ci": None, "n_pairs_complete": 0, "reason": "no pair"}
    assert there.has("asymptotic_from") and not absent.has("asymptotic_from") and absent.has("reason")
    made = Estimate(value=0.5, ci=(0.25, 0.75), n=4)              # made in code: its fields that are set
    assert made.to_dict() == {"value": 0.5, "ci": [0.25, 0.75], "n": 4}


def test_an_unknown_key_is_named():
    plain = dict(CASES["pairs-uniform"])
    plain["harm"] = {**plain["harm"], "ppi": {**plain["harm"]["ppi"], "lamda": 0.5}}
    with pytest.raises(ValueError, match=r"Ppi has no field\(s\) \['lamda'\]"):
        StudyNumbers.from_dict(plain)
