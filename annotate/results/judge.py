"""The judge-validity block of a pair study's numbers, per judge model: every number of the calibration
table with an interval, the human ceiling, the alternative-annotator test and order effects."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from fairval.analysis import judge_validity as jv
from fairval.analysis.active import active_ppi_mean, ppi_terms, weights
from fairval.analysis.alt_test import alt_test
from fairval.analysis.calibration import human_scores
from fairval.analysis.guarantees import guarantee
from fairval.analysis.ppi import classical_mean, ppi_mean
from fairval.analysis.projection import observations_needed
from fairval.analysis.reasons import Why, because
from fairval.analysis.sequential import ALPHA, ASYMPTOTIC_FROM, anytime_running, split_alpha
from fairval.annotate.material.design import Design
from fairval.annotate.results import escalation
from fairval.annotate.results.blocks import AltTest, Anytime, Estimate, HumanCeiling, Judge, Order, OrderDisagreement, Ppi, Rate

NO_DESIGN = Design()            # the default of the functions below: no draw recorded
ALT_TEST_EPSILON = 0.1          # Calderon et al.'s value for crowd workers
ALT_TEST_MIN_ITEMS = 30
WEIGHTED_NOTE = ("; for the study's own pairs, drawn without replacement, only approximately (terms weighted by "
                 "their chances do not get the without-replacement form)")
UNIFORM_NOTE = ("; for the study's own pairs, drawn without replacement, it errs wide: the pairs' own spread shrinks "
                "as the sample nears all of them, the raters' does not, and the interval keeps both (no "
                "without-replacement form, which would hold for the ratings as they came out, not for H)")
ADAPTIVE_PART = ("under the adaptive design a part of the pairs (one rater group, one pair group) is not a "
                 "random sample with known chances; the study's H (harm.ppi) weights every pair by its own")


def validity_numbers(ratings: pd.DataFrame, human: pd.Series, judge: pd.DataFrame, *, n_boot: int,
                     seed: int) -> Judge:
    """ratings: the scored question's ratings (canonical as a number, value as shown, rater_* columns);
    human: per-item human mean; judge: this model's rows (item_id, score, probabilities)."""
    score = judge.set_index("item_id")["score"]
    agreement = jv.sign_agreement(human, score)
    difference = jv.rate_difference(human, score, n_boot, seed)
    per_rating = ratings.rename(columns={"canonical": "score"})[["item_id", "rater_id", "score"]]
    ceiling = jv.human_ceiling(per_rating, n_boot, seed)
    alt = alt_test(per_rating.rename(columns={"score": "answer"}), score, epsilon=ALT_TEST_EPSILON,
                   min_items=ALT_TEST_MIN_ITEMS)
    order = jv.first_position_share(ratings["value"].astype(str))
    return Judge.of(
        sign_agreement_ci=agreement.ci,
        spearman=Estimate.of_result(jv.rank_correlation(human, score, "spearman")),
        kendall=Estimate.of_result(jv.rank_correlation(human, score, "kendall")),
        ccc=Estimate.of_result(jv.concordance(human, score)),
        human_ceiling=HumanCeiling.of(split_half=ceiling.value, ci=ceiling.ci, n_items=ceiling.n,
                                      item_se=ceiling.item_se, **({"reason": ceiling.reason} if ceiling.reason else {})),
        alt_test=AltTest.of(winning_rate=alt.winning_rate, advantage_probability=alt.advantage_probability,
                            epsilon=alt.epsilon, n_raters=alt.n_raters, n_raters_left_out=alt.n_raters_left_out,
                            min_items=alt.min_items, passed=alt.passed,
                            **({"reason": alt.reason} if alt.reason else {})),
        order=Order.of(humans_first_share=order.value, humans_first_ci=order.ci, humans_n=order.n,
                       humans_by_group=_first_share_by_group(ratings),
                       judge_order_disagreement=OrderDisagreement.of_result(jv.judge_order_disagreement(
                           [p for p in judge["probabilities"] if isinstance(p, dict)]))),
        # this judge's H beside the humans' (named as in the study's `harm` block, where the main judge's go)
        rate=Rate.of(lmra_ci=jv.mean_with_interval(score, n_boot, seed).ci, difference=Estimate.of_result(difference)),
    )


def _first_share_by_group(ratings: pd.DataFrame) -> dict[str, dict[str, Estimate]]:
    out = {}
    for attr in ("gender", "race"):
        column = f"rater_{attr}"
        if column in ratings:
            groups = ratings.dropna(subset=[column]).groupby(column, sort=True, observed=True)
            by = {str(g): Estimate.of_result(jv.first_position_share(part["value"].astype(str))) for g, part in groups}
            if by:
                out[attr] = by
    return out


def ppi_numbers(human: pd.Series, judge: pd.Series, design: Design = NO_DESIGN, *,
                inclusion: pd.Series | None = None, completed: pd.Series | None = None,
                target_width: float | None = None, raters_per_item: int = 1) -> Ppi:
    """PPI++ for the per-pair mean: labelled = pairs with human ratings (and a judge score), unlabelled =
    pairs the judge alone scored; beside it the human-only and judge-only means. The estimate is valid
    only when the rated pairs are a random sample: drawn by `fairval study sample` (`design`), or else
    not known to be random (Design(), none), and it says which. An active sample (`inclusion`: each pair's
    chance) gets the inverse-probability weighted estimate. `completed` (see numbers.completed_pairs: each complete
    pair's order and score from its first raters) adds `cs`, the anytime-valid interval over them."""
    judge = judge.dropna()
    if design.adaptive:     # only the whole study's terms carry its chances
        return Ppi.of(value=None, ci=None, design="adaptive", reason=ADAPTIVE_PART)
    if design.escalate:
        return Ppi.of(value=None, ci=None, design="escalate", reason=escalation.REASON)
    unlabelled = judge[~judge.index.isin(human.dropna().index)]
    labelled, pool, _w = _weighted(human, judge, design, inclusion)
    active = pool is not None
    if pool is not None and inclusion is not None:      # an active sample (see _weighted)
        estimate = active_ppi_mean(labelled["human"].to_numpy(), labelled["judge"].to_numpy(),
                                   inclusion[labelled.index].to_numpy(), pool.to_numpy(),
                                   inclusion[pool.index].to_numpy())
        judge_mean = float(pool.mean()) if len(pool) else 0.0
    else:
        estimate = ppi_mean(labelled["human"].to_numpy(), labelled["judge"].to_numpy(), unlabelled.to_numpy())
        judge_mean = float(judge.mean()) if len(judge) else 0.0
    out = Ppi.of(**estimate.shown(), design=design.kind if active else "uniform" if design.drawn else "none",
                 human_only=Estimate.of_result(classical_mean(human.dropna().to_numpy())),
                 judge_only=Estimate.of_result(classical_mean(judge.to_numpy())),
                 sampling=_sampling(design, int(human.notna().sum()), len(human.dropna()) - len(labelled)))
    if completed is not None:
        out = out.with_(cs=_ppi_sequence(completed, judge, design, inclusion, judge_mean, target_width,
                                         raters_per_item))
    return out


def _ppi_sequence(completed: pd.DataFrame, judge: pd.Series, design: Design, inclusion: pd.Series | None,
                  judge_mean: float, target_width: float | None, raters_per_item: int) -> Anytime:
    """H's anytime interval over the complete pairs, in the order they became complete. Each term
    λ_{t−1} m + w_t (y_t − λ_{t−1} f_t), m = mean(f), lies in [m − 2 w_max, m + 2 w_max] (scores in
    [−1, 1], λ in [0, 1], w at most w_max ≥ 1, known from the draw before anyone rates); λ_{t−1} is
    tuned on the pairs before t only, to the terms' least variance, which sets the asymptotic width."""
    labelled, pool, w = _weighted(completed["human"], judge, design, inclusion)
    order = np.argsort(completed["order"].reindex(labelled.index).to_numpy(), kind="stable")
    y, f = labelled["human"].to_numpy()[order], labelled["judge"].to_numpy()[order]
    terms = ppi_terms(y, f, w[order], judge_mean)
    reach = 2 * _largest_weight(pool, inclusion)
    # No without-replacement form, even for a uniform sample of the judged pairs (issue 53): it holds for the
    # mean of the values drawn, here each pair's ratings as they came out, so as the sample nears every pair
    # it closes on the realised mean rating, not on H (people's expected answer), whatever the raters' noise.
    return _anytime(terms, (judge_mean - reach, judge_mean + reach), (-1.0, 1.0), target_width, raters_per_item,
                    _planned(design, len(judge)), typical_span=4.0,
                    note=WEIGHTED_NOTE if pool is not None else UNIFORM_NOTE, available=len(judge))


def sign_agreement_cs(completed: pd.DataFrame, judge: pd.Series, design: Design = NO_DESIGN,
                      inclusion: pd.Series | None = None) -> Anytime:
    """The share of agreeing signs among the complete pairs whose people's mean has a direction (not 0), as
    the point estimate counts it (analysis.judge_validity.sign_agreement; n_human_zero: the pairs left out),
    anytime-valid in the order pairs became complete (weighted by 1/π in an active sample): see
    directed_share."""
    if design.escalate:
        return Anytime.of(value=None, ci=None, reason=escalation.REASON)
    labelled, pool, w = _weighted(completed["human"], judge.dropna(), design, inclusion)
    order = np.argsort(completed["order"].reindex(labelled.index).to_numpy(), kind="stable")
    human = labelled["human"].to_numpy()
    direction = human != 0
    hits = (np.sign(human) == np.sign(labelled["judge"].to_numpy())) & direction
    top = _largest_weight(pool, inclusion)
    uniform = pool is None          # 0/1 terms: the exact betting sequence is as narrow at every n

    def share(x: np.ndarray, quantity: str) -> Anytime:
        return _anytime(x[order], (0.0, top), (0.0, 1.0), None, 1, _planned(design, len(judge.dropna())),
                        population=len(judge.dropna()) if uniform else None, typical_span=min(top, 1.0),
                        start=None if uniform else ASYMPTOTIC_FROM, quantity=quantity, alpha=split_alpha())
    return directed_share(share(w * hits, "the share of pairs whose signs agree (people's mean not 0)"),
                          share(w * direction, "the share of pairs whose people's mean is not 0"),
                          int((~direction).sum()))


def directed_share(agree: Anytime, directed: Anytime, zero: int) -> Anytime:
    """Sign agreement among the pairs with a direction, A / D: A the share of pairs whose people's mean is not 0
    and whose sign the judge's has, D the share whose people's mean is not 0, each in its own anytime interval
    with half of α, so that both hold at once with chance ≥ 1 − α and A / D lies in [A_low / D_high,
    A_high / D_low] (cut to [0, 1]). A pair people answer 0 on average names no direction to agree with
    (analysis.calibration.sign_agreement): counting it would score a judge off 0 there as disagreeing."""
    out = {**directed.keyed(), "n_human_zero": zero, "value": None, "ci": None,
           "valid": ("the ratio of two anytime intervals, each with half of the 5% error, so both hold at once with "
                     f"chance at least 95%: the share of pairs whose signs agree over the share whose people's mean is "
                     f"not 0. Each is {agree.valid}")}
    out.pop("reason", None)
    if directed.value is not None and directed.value > 0 and agree.value is not None:
        out["value"] = float(agree.value) / float(directed.value)
    a_ci, d_ci = agree.ci, directed.ci
    if a_ci is None or d_ci is None or a_ci.low is None or a_ci.high is None or d_ci.low is None or d_ci.high is None:
        return Anytime.of(**out, reason=agree.reason or directed.reason)
    if d_ci.high <= 0:
        return Anytime.of(**out, reason="people's mean is 0 on every complete pair so far: no direction to agree on")
    low = a_ci.low / d_ci.high
    high = a_ci.high / d_ci.low if d_ci.low > 0 else 1.0
    return Anytime.of(**{**out, "ci": [max(low, 0.0), min(high, 1.0)]})


def _weighted(human: pd.Series, judge: pd.Series, design: Design, inclusion: pd.Series | None):
    """The rated pairs with a judge score, the pool they were drawn from (None unless the sample is
    active) and each rated pair's weight: Σπ / (N π) in an active sample, else 1."""
    labelled = jv.paired(human, judge)
    if not (design.weighted and inclusion is not None and len(inclusion)):
        return labelled, None, np.ones(len(labelled))
    pool = judge[judge.index.isin(inclusion.index)]
    labelled = labelled[labelled.index.isin(pool.index)]
    return labelled, pool, weights(inclusion[labelled.index].to_numpy(), inclusion[pool.index].to_numpy())


def _largest_weight(pool: pd.Series | None, inclusion: pd.Series | None) -> float:
    """The largest weight any rated pair of the pool can carry (its smallest chance's): 1 without an
    active sample, whose pool is None (see _weighted)."""
    if pool is None or pool.empty or inclusion is None:
        return 1.0
    chances = inclusion[pool.index].to_numpy(float)
    return float(weights(chances.min(keepdims=True), chances)[0])


def _planned(design: Design, pairs: int) -> int:
    """The pairs people are planned to rate (the drawn sample, or every judged pair): the bets' size."""
    planned = design.planned if design.drawn else pairs
    return max(int(planned or 0), 10)


def _anytime(terms: np.ndarray, bounds: tuple[float, float], valid_range: tuple[float, float],
             target_width: float | None, raters_per_item: int, planned: int, *, population: int | None = None,
             past: np.ndarray | None = None, typical_span: float | None = None,
             start: int | None = ASYMPTOTIC_FROM, quantity: str = "H", note: str | None = None,
             available: int | None = None, alpha: float = ALPHA) -> Anytime:
    """The narrowest valid anytime interval over terms known to lie in `bounds` (analysis.sequential.
    anytime_running: exact betting below ASYMPTOTIC_FROM pairs, the asymptotic sequence from there, for
    a set of `population` pairs drawn uniformly its without-replacement form), cut to the range the
    quantity can take, and how many more pairs and judgments the target width needs if the spread stays
    (none, out of reach, when it needs more pairs than the `available` ones the study has)."""
    n = len(terms)
    out: dict[str, Any] = {"value": None, "ci": None, "n_pairs_complete": n, "planned": planned,
           "valid": guarantee(n, quantity=quantity, start=start, population=population, note=(
               note if note is not None else WEIGHTED_NOTE if population is None else ""), alpha=alpha),
           "asymptotic_from": start}
    if n < 1:
        return Anytime.of(**out, reason=because(Why.NO_OBSERVATION))
    low, high = anytime_running(terms, lower=bounds[0], upper=bounds[1], planned=planned, population=population,
                                past=past, typical_span=typical_span, start=start, alpha=alpha)
    out.update(value=float(np.mean(terms)), method="betting" if start is None or n < start else "asymptotic")
    if np.isnan(low[-1]) or low[-1] > high[-1]:
        return Anytime.of(**out, reason=because(Why.RUNNING_EMPTY))
    out["ci"] = [max(float(low[-1]), valid_range[0]), min(float(high[-1]), valid_range[1])]
    if target_width is not None:
        span = bounds[1] - bounds[0]
        sd = float(np.std(terms, ddof=1)) / span if n > 1 else 0.5
        needed = observations_needed(sd, target_width / span, now=n, planned=planned, population=population,
                                     alpha=alpha if start is None else split_alpha(alpha),
                                     asymptotic_from=start, bets_for=start)
        if needed is not None and available is not None and needed > available:
            needed = None                   # the study has no more pairs to rate: out of reach at this spread
        out["target_width"] = target_width
        out["more_pairs"] = None if needed is None else needed - n
        out["more_judgments"] = None if needed is None else (needed - n) * raters_per_item
    return Anytime.of(**out)


def _sampling(design: Design, rated: int, unscored: int = 0) -> str:
    sample = design.recorded
    if not design.drawn:
        return ("not known to be random: valid only if the pairs people rated were drawn at random from all "
                "the judge scored (draw them with `fairval study sample`)")
    if design.kind == "stratified":
        text = (f"a sample of {sample['n']:,} of {sample['of']:,} pairs drawn by group pair (seed {sample['seed']}, "
                f"`fairval study sample --by-group-pair`): {design.by_group_pair()}; each rated pair is weighted "
                "by 1/its group pair's chance")
    elif design.kind == "active":
        text = (f"an active sample of {sample['n']:,} of {sample['of']:,} pairs, drawn where {sample['judge']!r} was "
                f"least sure (expected {sample['budget']:,}, seed {sample['seed']}, `fairval study sample --active`); "
                "each rated pair is weighted by 1/its chance of being drawn")
    else:
        text = (f"a random sample of {sample['n']:,} of {sample['of']:,} pairs (seed {sample['seed']}, "
                "`fairval study sample`)")
    if rated < sample["n"]:
        text += f"; {sample['n'] - rated} sampled pair(s) have no rating yet, so it is random only if they are missing at random"
    if unscored:
        text += (f"; {unscored} rated pair(s) have no judge score and are left out, so it is random only if "
                 "the judge's gaps are")
    return text


def group_agreement(ratings: pd.DataFrame, judge: pd.Series, design: Design = NO_DESIGN,
                    inclusion: pd.Series | None = None) -> Judge:
    """For one rater group (004 Fig. 6): the agreement numbers with their intervals, and H by PPI++,
    from that group's per-pair mean."""
    human = human_scores(ratings)
    return Judge.of(sign_agreement_ci=jv.sign_agreement(human, judge).ci,
                    spearman=Estimate.of_result(jv.rank_correlation(human, judge, "spearman")),
                    kendall=Estimate.of_result(jv.rank_correlation(human, judge, "kendall")),
                    ccc=Estimate.of_result(jv.concordance(human, judge)),
                    ppi=ppi_numbers(human, judge, design, inclusion=inclusion))
