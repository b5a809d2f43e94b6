"""The typed blocks of a pair study's numbers (StudyNumbers.harm, .feature_difference and .lmra), down to
their intervals: frozen dataclasses read by attribute, built by the numbers from what analysis/ computed
and turned into `analyze --json`'s plain form only at the JSON edge (annotate.results.block)."""
from __future__ import annotations

from dataclasses import dataclass, field

from fairval.analysis.interval import Interval
from fairval.analysis.reasons import Reason
from fairval.annotate.results.block import Block, key


@dataclass(frozen=True)
class Estimate(Block):
    """A number with its 95% interval and n, or the reason it has none (analysis.judge_validity.estimate);
    `valid`: what the interval is worth when that is less than its name says."""
    value: float | None = None
    ci: Interval | None = None
    n: int | None = None
    reason: Reason | None = None
    valid: str | None = None


@dataclass(frozen=True)
class Anytime(Block):
    """An anytime-valid interval over the complete pairs in the order they became complete (`cs`): its
    method and guarantee, and what the target width still needs (more pairs, more judgments)."""
    value: float | None = None
    ci: Interval | None = None
    n_pairs_complete: int | None = None
    n_decided: int | None = None                 # the adaptive design: pairs decided in the prefix
    planned: int | None = None
    method: str | None = None                    # betting or asymptotic
    asymptotic_from: int | None = None
    valid: str | None = None
    reason: Reason | None = None
    target_width: float | None = None
    more_pairs: int | None = None
    more_judgments: int | None = None
    n_human_zero: int | None = None              # sign agreement: complete pairs left out (people's mean 0)


@dataclass(frozen=True)
class Ppi(Block):
    """The per-pair mean by prediction-powered inference (PPI++, weighted by the chances of an active or
    adaptive draw), with the human-only and judge-only means beside it, what the sample is (`sampling`),
    and `cs`, its anytime interval. A group pair's or rater group's PPI has only the estimate's part."""
    value: float | None = None
    ci: Interval | None = None
    se: float | None = None
    lambda_: float | None = key("lambda")
    n_labelled: int | None = None
    n_unlabelled: int | None = None
    n_decided: int | None = None
    design: str | None = None
    reason: Reason | None = None
    valid: str | None = None
    human_only: Estimate | None = None
    judge_only: Estimate | None = None
    sampling: str | None = None
    cs: Anytime | None = None


@dataclass(frozen=True)
class PairGroup(Block):
    """One group pair (stratum): pairs the judge scored, pairs people rated, its H and sign agreement."""
    n_pairs: int = 0
    n_rated: int = 0
    ppi: Ppi | None = None
    sign_agreement: float | None = None
    sign_agreement_ci: Interval | None = None


@dataclass(frozen=True)
class Stratified(Block):
    """H from the group pairs' estimates, weighted by each one's share of the judged pairs."""
    value: float | None = None
    ci: Interval | None = None
    strata: int | None = None
    n_pairs: int | None = None
    valid: str | None = None
    reason: Reason | None = None


@dataclass(frozen=True)
class Allocation(Block):
    """Neyman's allocation of the rated pairs across groups (group pairs or rater groups), or why none."""
    total: int | None = None
    pairs: dict[str, int] | None = None
    more: dict[str, int] | None = None
    spread: dict[str, float] | None = None
    estimated_from_others: tuple[str, ...] | None = None
    variance_ratio: float | None = None
    reason: Reason | None = None


@dataclass(frozen=True)
class PairGroups(Block):
    """H per group pair (`by_pair_group`): each stratum, the stratified H, and the allocation."""
    groups: dict[str, PairGroup] = field(default_factory=dict)
    stratified: Stratified | None = None
    allocation: Allocation | None = None


@dataclass(frozen=True)
class Pilot(Block):
    """The rated study that set trust or escalate's threshold."""
    study: str | None = None
    pairs: int | None = None
    n_above: int | None = None
    disagreements: int | None = None
    p_value: float | None = None


@dataclass(frozen=True)
class Escalation(Block):
    """Trust or escalate: the judge's threshold and guarantee, the pairs it decided alone, the labels, and
    their sign balance with the bias its guarantee allows (`h_signs`: sign_balance's old key)."""
    threshold: float | None = None
    judge: str | None = None
    agreement: float | None = None
    risk: float | None = None
    pilot: Pilot | None = None
    pairs: int | None = None
    trusted: int | None = None
    escalated: int | None = None
    escalated_complete: int | None = None
    labels: dict[str, int] | None = None
    bias_bound: float | None = None
    h_signs: float | None = None
    sign_balance: float | None = None
    reason: Reason | None = None
    guarantee: str | None = None


@dataclass(frozen=True)
class Rate(Block):
    """A pair study's per-pair mean (`harm`: H; `feature_difference`: the A-minus-B difference): people's
    and the main judge's with intervals, their paired difference, PPI, per group pair and, under trust or
    escalate, `escalation`. A judge's own block in `lmra.by_model` has the judge's part only."""
    human: float | None = None
    n_items_human: int | None = None
    human_ci: Interval | None = None
    human_reason: Reason | None = None           # why people's mean has no interval (one rated pair)
    lmra: float | None = None
    n_items_lmra: int | None = None
    lmra_ci: Interval | None = None
    difference: Estimate | None = None
    ppi: Ppi | None = None
    by_pair_group: PairGroups | None = None
    escalation: Escalation | None = None


@dataclass(frozen=True)
class HumanCeiling(Block):
    """People against people: the split-half correlation of the per-pair means, with its interval."""
    split_half: float | None = None
    ci: Interval | None = None
    n_items: int | None = None
    item_se: float | None = None
    reason: Reason | None = None


@dataclass(frozen=True)
class AltTest(Block):
    """Calderon et al.'s alternative-annotator test: does the judge stand in for a rater."""
    winning_rate: float | None = None
    advantage_probability: float | None = None
    epsilon: float | None = None
    n_raters: int | None = None
    n_raters_left_out: int | None = None
    min_items: int | None = None
    passed: bool | None = None
    reason: Reason | None = None


@dataclass(frozen=True)
class OrderDisagreement(Block):
    """How much the judge's answer moves when the responses swap places."""
    discarded_mass: float | None = None
    argmax_differs: float | None = None
    n: int | None = None
    reason: Reason | None = None


@dataclass(frozen=True)
class Order(Block):
    """Order effects: the share of people's answers naming the response shown first, overall and per
    rater group (attribute -> group -> share), and the judge's."""
    humans_first_share: float | None = None
    humans_first_ci: Interval | None = None
    humans_n: int | None = None
    humans_by_group: dict[str, dict[str, Estimate]] | None = None
    judge_order_disagreement: OrderDisagreement | None = None


@dataclass(frozen=True)
class ConfidenceBin(Block):
    low: float | None = None
    high: float | None = None
    n: int | None = None
    confidence: float | None = None
    agreement: float | None = None


@dataclass(frozen=True)
class Confidence(Block):
    """The judge's confidence against people's answers: calibration error (plug-in and debiased) and Brier
    score, by bin; n_ties: pairs whose top answers tie (their agreement split between them)."""
    n_pairs: int | None = None
    n_ties: int | None = None
    ece: float | None = None
    ece_debiased: float | None = None
    ece_ci: Interval | None = None
    brier: float | None = None
    brier_ci: Interval | None = None
    bins: tuple[ConfidenceBin, ...] | None = None
    reason: Reason | None = None


@dataclass(frozen=True)
class Length(Block):
    """The judge's lean towards longer responses against people's (Pearson r with the length difference)."""
    n_pairs: int | None = None
    judge_r: float | None = None
    human_r: float | None = None
    difference: float | None = None
    difference_ci: Interval | None = None
    reason: Reason | None = None


@dataclass(frozen=True)
class LabelSwap(Block):
    """The judge asked again with the group labels swapped: how often its verdict followed the labels (kept its
    letter) and how often the responses (changed sign, or stayed at none)."""
    n: int | None = None
    follows_labels: float | None = None
    follows_labels_ci: Interval | None = None
    follows_responses: float | None = None
    follows_responses_ci: Interval | None = None
    reason: Reason | None = None


@dataclass(frozen=True)
class JudgeError(Block):
    """The judge's error (judge − people) in one group pair, with its sign agreement there."""
    n_rated: int | None = None
    mean_error: float | None = None
    mean_error_ci: Interval | None = None
    sign_agreement: float | None = None
    sign_agreement_ci: Interval | None = None
    reason: Reason | None = None
    label_swap: LabelSwap | None = None


@dataclass(frozen=True)
class EqualError(Block):
    """Welch's test that the judge's mean error is the same in every group pair."""
    f: float | None = None
    df: tuple[float, ...] | None = None
    p_value: float | None = None
    group_pairs: tuple[str, ...] | None = None
    reason: Reason | None = None


@dataclass(frozen=True)
class JudgeFairness(Block):
    """The fairness judge's own audit by group pair (`lmra.by_pair_group`, analysis.judge_fairness)."""
    groups: dict[str, JudgeError] = field(default_factory=dict)
    equal_error: EqualError | None = None
    label_swap: LabelSwap | None = None


@dataclass(frozen=True)
class Judge(Block):
    """A judge against people: the main judge (`lmra`), each judge of several (`lmra.by_model`, where `rate`
    holds that judge's per-pair mean numbers; the main judge's are in `harm`), and a rater group's
    numbers (`by_rater_group`: the calibration, the rank agreements, its PPI, and `p_holm`, its p
    Holm-adjusted over the attribute's groups) with the fields that apply to it."""
    pearson_r: float | None = None                       # analysis.calibration.Calibration
    pearson_ci: Interval | None = None
    p_value: float | None = None
    sign_agreement: float | None = None
    n_items: int | None = None
    reason: Reason | None = None
    n_human_zero: int | None = None                      # items left out of sign agreement (human mean 0)
    sign_agreement_ci: Interval | None = None
    spearman: Estimate | None = None
    kendall: Estimate | None = None
    ccc: Estimate | None = None
    ppi: Ppi | None = None                               # a rater group's
    p_holm: float | None = None                          # a rater group's
    human_ceiling: HumanCeiling | None = None
    alt_test: AltTest | None = None
    order: Order | None = None
    by_rater_group: dict[str, dict[str, Judge]] | None = None
    rater_group_allocation: dict[str, Allocation] | None = None
    confidence: Confidence | None = None
    length: Length | None = None
    sign_agreement_cs: Anytime | None = None
    rate: Rate | None = None                             # in by_model
    model: str | None = None
    by_model: dict[str, Judge] | None = None
    by_pair_group: JudgeFairness | None = None            # the main judge's
