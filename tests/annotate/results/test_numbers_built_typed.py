"""The numbers are built typed from what analysis/ computes (issue 56): no step on the way from the analysis
to `analyze --json`, the report, the pages' numbers or the Python API reads the plain form back
(from_dict), and a block made in code prints the keys it was given, in their order, as plain JSON."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

import fairval
from fairval.analysis.interval import Interval
from fairval.annotate.cli.main import cli
from fairval.annotate.results import block as blocks
from fairval.annotate.results import result
from fairval.annotate.results.blocks import Anytime, Estimate, Judge, Ppi, Rate
from fairval.annotate.results.result import Names, QuestionNumbers, StudyNumbers


def _cli(db, *args):
    out = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert out.exit_code == 0, out.output
    return out.output


@pytest.fixture
def no_reading_back(monkeypatch):
    """Every from_dict on the numbers' types fails, so a path through one shows."""
    def refuse(*_args, **_kwargs):
        raise AssertionError("the numbers were read back from their plain form")
    for owner in (blocks.Block, StudyNumbers, QuestionNumbers, Names):
        monkeypatch.setattr(owner, "from_dict", classmethod(refuse))


def test_analyze_the_report_and_the_api_never_read_the_plain_form_back(tmp_path, no_reading_back):
    db = tmp_path / "demo.db"
    _cli(db, "demo", "--no-serve")
    with fairval.open(db) as opened:
        typed = {s: opened.study(s).analyze(bootstrap=50) for s in ("demo-pairs", "demo-names", "demo-templates")}
    for study, numbers in typed.items():
        printed = json.loads(_cli(db, "analyze", study, "--json", "--bootstrap", "50"))
        assert json.loads(json.dumps(numbers.to_dict())).keys() == printed.keys()
    pairs = typed["demo-pairs"]
    assert isinstance(pairs.harm, Rate) and isinstance(pairs.lmra, Judge) and isinstance(pairs.harm.ppi, Ppi)
    assert isinstance(pairs.harm.ppi.human_only, Estimate) and isinstance(pairs.lmra.sign_agreement_cs, Anytime)
    # the attribute is the printed number (the CLI prints 12 significant digits)
    printed = json.loads(_cli(db, "analyze", "demo-pairs", "--json", "--bootstrap", "50"))
    assert pairs.harm.human == pytest.approx(printed["harm"]["human"], rel=1e-11)
    assert list(pairs.harm.human_ci) == pytest.approx(printed["harm"]["human_ci"], rel=1e-11)
    assert pairs.lmra.pearson_r == pytest.approx(printed["lmra"]["pearson_r"], rel=1e-11)
    # every interval is one Interval: its level, and its guarantee where the block says what it is worth
    for ci in (pairs.harm.human_ci, pairs.lmra.pearson_ci, pairs.harm.ppi.human_only.ci,
               typed["demo-pairs"].questions["harm"].alpha_ci):
        assert isinstance(ci, Interval) and ci.level == 0.95 and ci.low <= ci.high
    cs = pairs.harm.ppi.cs
    if cs is not None and cs.ci is not None:
        assert cs.ci.guarantee == cs.valid and cs.valid
    names = typed["demo-names"].names.by_question["race"]
    assert all(ci is None or isinstance(ci, Interval) for ci in names.accuracy_ci.values())
    text = _cli(db, "analyze", "demo-pairs")
    assert f"r={pairs.lmra.pearson_r:.3f}" in text
    _cli(db, "report", "demo-pairs", "--out", str(tmp_path / "r.md"))
    assert "LMRA calibration" in (tmp_path / "r.md").read_text(encoding="utf-8")


def test_a_block_made_in_code_prints_the_keys_given_in_their_order_as_plain_numbers():
    made = Ppi.of(value=np.float64(0.25), ci=[np.float64(-0.5), 1.0], **{"lambda": float("nan")}, reason=None,
                  n_labelled=np.int64(4))
    assert made.value == 0.25 and type(made.value) is float and made.lambda_ is None
    assert tuple(made.ci) == (-0.5, 1.0) and type(made.n_labelled) is int
    plain = made.to_dict()
    assert list(plain) == ["value", "ci", "lambda", "reason", "n_labelled"]       # as given; nulls kept
    assert plain == {"value": 0.25, "ci": [-0.5, 1.0], "lambda": None, "reason": None, "n_labelled": 4}
    assert json.dumps(plain) == '{"value": 0.25, "ci": [-0.5, 1.0], "lambda": null, "reason": null, "n_labelled": 4}'
    # set as a dict's update sets: a key it has keeps its place, a new one goes last
    later = made.with_(se=0.1, value=0.5)
    assert list(later.to_dict()) == ["value", "ci", "lambda", "reason", "n_labelled", "se"]
    assert later.value == 0.5 and made.value == 0.25                     # a new block; the first is unchanged
    assert later.keyed()["ci"] == Interval(-0.5, 1.0)


def test_a_plain_dict_where_a_block_belongs_is_refused():
    with pytest.raises(TypeError, match="a block of type Estimate is needed, not dict"):
        Ppi.of(value=0.1, human_only={"value": 0.1, "ci": None, "n": 3})
    with pytest.raises(TypeError, match="a block of type Judge is needed"):
        Judge.of(order=None, by_rater_group={"gender": {"female": {"pearson_r": 0.5}}})
    with pytest.raises(TypeError, match=r"Rate has no field\(s\) \['lamda'\]"):
        Rate.of(lamda=0.5)


def test_nan_and_numpy_become_python_in_nested_values():
    assert blocks.scalar({1: [np.float64("nan"), np.int32(3)], "b": (np.bool_(True),)}) == {"1": [None, 3], "b": [True]}
    assert math.isnan(float("nan")) and blocks.scalar(float("nan")) is None
    estimate = Estimate.of(value=np.float64("nan"), ci=None, n=np.int64(2))
    assert estimate.value is None and estimate.n == 2 and type(estimate.n) is int
    assert estimate.to_dict() == {"value": None, "ci": None, "n": 2}


def test_one_interval_type_prints_as_its_two_ends():
    made = Ppi.of(value=0.1, ci=(np.float64(-0.2), 0.4), n_labelled=12, valid="approximate: 12 pairs")
    assert made.ci == Interval(-0.2, 0.4, 0.95, "approximate: 12 pairs")     # the block's `valid` is its guarantee
    assert made.ci.width == pytest.approx(0.6) and tuple(made.ci) == (-0.2, 0.4) and made.ci[1] == 0.4
    assert made.to_dict()["ci"] == [-0.2, 0.4]
    low, high = Estimate(value=0.5, ci=(0.25, 0.75), n=4).ci                 # made in code from two ends
    assert (low, high) == (0.25, 0.75)
    row = result.TemplateRow("t", "quality", 3, 4.0, 0.5, Interval(2.5, 5.0))
    assert row.to_dict() == {"template": "t", "question": "quality", "n": 3, "mean": 4.0, "share_4_or_5": 0.5,
                             "mean_ci_low": 2.5, "mean_ci_high": 5.0}
    assert result.TemplateRow.from_dict(row.to_dict()) == row


def test_a_reason_is_a_kind_with_its_facts_and_its_english_is_made_at_the_edge():
    from fairval.analysis.ppi import ppi_mean
    from fairval.analysis.reasons import Reason, Why, because

    found = ppi_mean(np.array([0.5]), np.array([0.4]), np.array([0.1, 0.2, 0.3]))
    why = found.reason
    assert isinstance(why, Reason) and why.why is Why.FEW_FOR_PPI and why.fact("n") == 1 and why.fact("unlabelled") == 3
    # the sentence `analyze --json` has always printed, singular and plural
    assert str(why) == ("1 pair rated by people and scored by the judge, 3 scored by the judge alone; "
                        "prediction-powered inference needs at least 2 of the first and 1 of the second")
    assert str(because(Why.FEW_FOR_PPI, n=0, unlabelled=1)).startswith("0 pairs rated by people")
    block = Ppi.of(**found.shown())
    assert block.reason == why and block.to_dict()["reason"] == str(why)
    assert f"undefined ({block.reason})" == f"undefined ({why})"            # a page's f-string reads its English
    # a sentence read back from JSON, or one not given a kind yet, is a reason too (its kind: TEXT)
    back = Anytime.from_dict({"value": None, "ci": None, "reason": "no pair"})
    assert back.reason == because(Why.TEXT, text="no pair") and back.to_dict()["reason"] == "no pair"
