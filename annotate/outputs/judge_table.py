"""Judge-validity numbers as table rows and plain sentences, shared by the Calibration page, the report
and `fairval compare` (so all three print the same thing)."""
from __future__ import annotations

from fairval.analysis.interval import Interval
from fairval.analysis.judge_validity import SMALL_N
from fairval.analysis.ppi import FEW_PAIRS
from fairval.analysis.running_adaptive import BURN_IN_WORDS
from fairval.annotate.material.design import Design
from fairval.annotate.outputs import formats
from fairval.annotate.results.blocks import (
    Allocation,
    Anytime,
    Confidence,
    Escalation,
    Estimate,
    Judge,
    Length,
    PairGroups,
    Ppi,
    Rate,
)


def with_ci(value, ci, reason=None) -> str:
    """A number with its interval, or with the reason it has none (when it has one)."""
    if not ci:
        return formats.ratio(value) + (f" ({reason})" if reason and value is not None else "")
    return f"{formats.ratio(value)} {formats.interval(ci)}"


def interval_cell(ci, reason=None) -> str:
    """A table's interval cell: the interval, or why there is none."""
    return formats.interval(ci) if ci or not reason else str(reason)


def calibration_cells(c: Judge) -> dict:
    """004 Table 1's numbers for one judge (or one rater group): Pearson's r, its interval and p (Holm-adjusted
    too, for rater groups), sign agreement, n."""
    return {"r": formats.ratio(c.pearson_r), "95% CI": formats.interval(c.pearson_ci),
            "p": formats.p_value(c.p_value),
            **({"p (Holm)": formats.p_value(c.p_holm)} if c.has("p_holm") else {}),
            "sign agreement": formats.ratio(c.sign_agreement),
            "n items": c.n_items, "note": str(c.reason or "")}


def validity_row(label: str, c: Judge) -> dict:
    """One judge: every agreement number with its 95% interval."""
    return {"judge": label, "r (Pearson)": with_ci(c.pearson_r, c.pearson_ci),
            "Spearman": with_ci(c.spearman and c.spearman.value, c.spearman and c.spearman.ci),
            "Kendall": with_ci(c.kendall and c.kendall.value, c.kendall and c.kendall.ci),
            "CCC": with_ci(c.ccc and c.ccc.value, c.ccc and c.ccc.ci),
            "sign agreement": with_ci(c.sign_agreement, c.sign_agreement_ci),
            "ω (alt-test)": formats.ratio(c.alt_test and c.alt_test.winning_rate), "n items": c.n_items}


def ceiling_sentence(c: Judge) -> str:
    ceiling = c.human_ceiling
    r, h = c.pearson_r, ceiling.split_half if ceiling is not None else None
    if ceiling is None or h is None:
        return f"Human ceiling: undefined ({(ceiling and ceiling.reason) or 'not enough ratings'})."
    text = (f"People agree with each other at {formats.ratio(h)} {formats.interval(ceiling.ci)} "
            f"(split-half reliability of the per-pair mean, Spearman–Brown, {formats.count(ceiling.n_items, 'pair')})")
    if r is not None and h > 0:
        text += f"; the judge's Pearson r = {formats.ratio(r)} reaches {formats.ratio(r / h)} of that"
    return text + "."


def alt_test_sentence(c: Judge) -> str:
    alt = c.alt_test
    if alt is None or alt.winning_rate is None:
        return f"Alternative-annotator test: undefined ({(alt and alt.reason) or 'no raters'})."
    verdict = "passes" if alt.passed else "does not pass"
    return (f"Alternative-annotator test (ε = {alt.epsilon:g}): the judge beats "
            f"{formats.ratio(alt.winning_rate)} of {formats.count(alt.n_raters, 'rater')} and {verdict} "
            f"(ω ≥ 0.5); advantage probability {formats.ratio(alt.advantage_probability)}"
            + (f"; {formats.count(alt.n_raters_left_out, 'rater')} with fewer than {alt.min_items} shared "
               "items left out" if alt.n_raters_left_out else "") + ".")


def order_sentence(c: Judge) -> str:
    order = c.order
    parts = []
    if order is not None and order.humans_first_share is not None:
        parts.append(f"People chose Response 1 in {formats.ratio(order.humans_first_share)} "
                     f"{formats.interval(order.humans_first_ci)} of {order.humans_n} answers naming a "
                     "response (0.5 is no position bias; side swapping cancels it in the scores)")
    judge = order and order.judge_order_disagreement
    if judge and judge.n:
        parts.append(f"the judge's two orders disagree: {formats.ratio(judge.discarded_mass)} of the "
                     f"probability is discarded by the min-combination and the most likely answer differs in "
                     f"{formats.ratio(judge.argmax_differs)} of {formats.count(judge.n, 'pair')}")
    return ("; ".join(parts) + ".") if parts else "Order effects: no answer named a response."


def ppi_sentence(ppi: Ppi | None, label: str) -> str:
    if ppi is None:
        return ""
    if ppi.value is None:
        return f"{label} by prediction-powered inference: undefined ({ppi.reason})."
    human, judge = ppi.human_only or Estimate(), ppi.judge_only or Estimate()      # both beside an estimate
    method = Design.named(ppi.design).words.method
    return (f"{label} by prediction-powered inference ({method}, λ = {formats.ratio(ppi.lambda_)}): "
            f"{with_ci(ppi.value, ppi.ci)} from {formats.count(ppi.n_labelled, 'pair')} rated by people and "
            f"{formats.count(ppi.n_unlabelled, 'pair')} by the judge alone; people alone "
            f"{with_ci(human.value, human.ci)}, the judge alone {with_ci(judge.value, judge.ci)}. "
            f"The pairs people rated are {ppi.sampling}."
            + (f" Its interval is {ppi.valid}; the anytime interval is valid at every n." if ppi.valid else ""))


def few_pairs_sentence(n_rated: int | None) -> str:
    """Which intervals of means people's few pairs get (analysis.judge_validity.SMALL_N)."""
    if not n_rated or n_rated < 2 or n_rated >= SMALL_N:
        return ""
    return (f"With {formats.count(n_rated, 'rated pair')} (fewer than {SMALL_N}), the intervals of means of people's "
            "scores (humans, humans − LMRA, people alone) are betting intervals, valid at every n and so wide; "
            f"from {SMALL_N} pairs on they are the bootstrap's and the normal approximation's.")


def pair_group_rows(block: PairGroups | None) -> list[dict]:
    """H per group pair (harm.by_pair_group): PPI within each, sign agreement, and the allocation."""
    if block is None or not block.groups:
        return []
    pairs = (block.allocation and block.allocation.pairs) or {}
    more = (block.allocation and block.allocation.more) or {}
    rows = []
    for name, g in block.groups.items():
        ppi = g.ppi or Ppi()
        rows.append({"groups": name, "pairs": g.n_pairs, "rated": g.n_rated, "H (PPI)": with_ci(ppi.value, ppi.ci),
                     "sign agreement": with_ci(g.sign_agreement, g.sign_agreement_ci),
                     "rated, best spread": pairs.get(name, formats.DASH), "short of it": more.get(name, formats.DASH),
                     "note": str(ppi.reason or _few(ppi))})
    return rows


def _few(estimate: Ppi) -> str:
    """A row's note where its normal interval comes from fewer than SMALL_N rated pairs."""
    return (f"approximate: fewer than {SMALL_N} rated pairs" if estimate.valid == FEW_PAIRS else "")


def stratified_sentence(block: PairGroups | None, label: str) -> str:
    """The stratified H over the group pairs, and what spreading people's pairs across them would save."""
    if block is None or not block.groups:
        return ""
    whole = block.stratified
    text = (f"{label} by stratified PPI over the group pairs (Fisch et al. 2024): "
            + (f"{with_ci(whole.value, whole.ci)}." if whole is not None and whole.value is not None
               else f"undefined ({whole and whole.reason}).")
            + (f" Its interval is {whole.valid}." if whole is not None and whole.valid else ""))
    allocation = block.allocation
    if allocation is not None and allocation.pairs and allocation.variance_ratio is not None:
        text += (f" Spread as in “rated, best spread” (∝ each group pair's share × its spread), the same "
                 f"{formats.count(allocation.total, 'rated pair')} would give {formats.ratio(allocation.variance_ratio)} "
                 "of the variance of a spread in proportion to the shares.")
    return text


def rater_allocation_sentence(blocks: dict[str, Allocation] | None) -> str:
    """How many pairs each rater group should rate to compare the groups' H (lmra.rater_group_allocation)."""
    parts = []
    for attr, block in (blocks or {}).items():
        if not block.pairs or block.variance_ratio is None:
            continue
        spread = ", ".join(f"{g} {formats.count(n, 'pair')}" for g, n in block.pairs.items())
        short = ", ".join(f"{g} {n:,}" for g, n in (block.more or {}).items() if n)
        parts.append(f"by {attr}, {spread}" + (f" (short of it: {short})" if short else "")
                     + f", {formats.ratio(block.variance_ratio)} of the variance of an equal split")
    if not parts:
        return ""
    return ("To compare rater groups' H, the same rated pairs are best spread in proportion to each group's spread "
            "(Neyman's allocation): " + "; ".join(parts) + ".")


def chosen_pairs_sentence(rate: Rate | None, sign_cs: Anytime | None) -> str:
    """Under a design that chose people's pairs by the judge's uncertainty, or drew them by group pair, what
    the agreement numbers (r, sign agreement, per group) describe: the pairs people rated, not all; and sign
    agreement over all pairs where the design's chances allow it (lmra.sign_agreement_cs)."""
    ppi = rate and rate.ppi
    design = Design.named(ppi.design if ppi else None)
    n_judged = rate.n_items_lmra if rate else None
    if design.kind == "stratified":
        text = ("People's pairs were drawn by group pair: the agreement numbers here, overall and by group, weigh "
                "each group pair by its share of the pairs people rated, not of all "
                f"{formats.count(n_judged, 'pair')}.")
    elif design.chosen_by_judge:
        text = (f"People's pairs were chosen by the judge's uncertainty ({design.words.chosen_by}): the agreement "
                "numbers here, overall and by group, describe the pairs people rated, most of them where the judge is "
                f"least sure, not all {formats.count(n_judged, 'pair')}.")
    else:
        return ""
    if sign_cs and sign_cs.ci:
        low, high = (formats.ratio(v) for v in sign_cs.ci)
        text += (f" Over all pairs, each rated pair weighted by 1/its chance, sign agreement (where people's mean is not "
                 f"0) is between {low} and {high}, valid however often you look.")
    return text


def escalation_sentence(block: Escalation | None, label: str) -> str:
    """A study under trust or escalate (results.escalation): its labels, their H and its guarantee."""
    if block is None:
        return ""
    labels = block.labels or {}
    text = (f"Trust or escalate: {block.guarantee}. Labels: {formats.count(labels['1'], 'pair')} +1, "
            f"{formats.count(labels['-1'], 'pair')} −1, {formats.count(labels['0'], 'pair')} 0"
            + (f", {formats.count(labels['tie'], 'pair')} where people tie" if labels["tie"] else "") + ". ")
    balance = "Sign balance of the labels (the share of +1 minus the share of −1; not H, which averages people's scores)"
    if block.sign_balance is None:
        return text + f"{balance}: not yet ({block.reason})."
    return text + (f"{balance}: {formats.ratio(block.sign_balance)}; when the "
                   f"guarantee holds, people's own share differs from it by at most "
                   f"{formats.ratio(block.bias_bound)} in expectation. It has no interval: the escalated pairs "
                   "are all rated, and the trusted ones carry the judge's answers.")


def _kind(cs: Anytime) -> str:
    """The guarantee in a few words: exact, or asymptotic from which pair (the full text is cs.valid)."""
    if cs.method == "asymptotic" and cs.n_decided is not None:    # the adaptive design counts decided pairs, and
        return f"; asymptotic, {BURN_IN_WORDS}"                     # waits for its burn-in (issue 53)
    if cs.method == "asymptotic":
        return f"; asymptotic, from the {cs.asymptotic_from}th pair"
    return "; exact" if cs.method == "betting" else ""


def _decided(cs: Anytime) -> str:
    return "" if cs.n_decided is None else f", {cs.n_decided:,} decided"


def anytime_sentence(cs: Anytime | None, label: str, *, target: bool = True) -> str:
    """The anytime-valid interval in words, with how far the study is from its target width (or how to
    set one); target=False: the interval alone."""
    if cs is None:
        return ""
    if cs.ci is None:
        return f"{label}: no anytime-valid interval yet ({cs.reason})."
    low, high = (formats.ratio(v) for v in cs.ci)
    text = (f"{label} is between {low} and {high}, valid however often you look "
            f"({formats.count(cs.n_pairs_complete, 'pair')} complete{_decided(cs)}{_kind(cs)}).")
    if not target:
        return text
    if cs.target_width is None:
        return text + (" Set a target width to see when the study can stop (Manage, Configure; or "
                       "`fairval study set STUDY target_ci_width=0.05`).")
    ci = Interval.of(cs.ci)
    width = ci.width if ci is not None else None
    if cs.more_pairs == 0 or (width is not None and width <= cs.target_width):
        return text + f" The target width {cs.target_width:g} is reached: the study can stop."
    if cs.more_pairs is None:
        return text + f" At this spread the target width {cs.target_width:g} is out of reach."
    return (text + f" At this rate the target width {cs.target_width:g} is reached after about "
            f"{formats.count(cs.more_judgments, 'more judgment')} ({formats.count(cs.more_pairs, 'more pair')}).")


def confidence_sentence(c: Confidence | None) -> str:
    """The judge's calibration against people's answers (lmra.confidence), in a sentence."""
    if c is None or c.ece is None:
        return str((c and c.reason) or "")
    ties = (f" (on {formats.count(c.n_ties, 'pair')} its top answers tie: its agreement is split between them)"
            if c.n_ties else "")
    debiased = c.ece_debiased if c.ece_debiased is not None else c.ece
    return (f"Is the judge's confidence worth anything? Over {c.n_pairs} pairs{ties}, its expected calibration "
            f"error against people's answers is {with_ci(debiased, c.ece_ci)} (debiased for the raters' noise; "
            f"plug-in {formats.ratio(c.ece)}; 0: its confidence is the chance a person gives its answer) and its "
            f"Brier score against a person's answer {with_ci(c.brier, c.brier_ci)} (0 perfect, 2 worst).")


def length_sentence(c: Length | None) -> str:
    """Whether the judge rewards longer responses more than people do (lmra.length); empty when it does not."""
    if c is None or c.difference is None or not c.difference_ci or c.judge_r is None or c.human_r is None:
        return ""
    low, high = c.difference_ci
    leans_more = abs(c.judge_r) > abs(c.human_r) and ((low is not None and low > 0) or (high is not None and high < 0))
    if not leans_more:
        return ""
    side = "the longer" if c.judge_r > 0 else "the shorter"
    return (f"The judge leans towards {side} response more than people do: its score's correlation with the "
            f"difference in length is {c.judge_r:.2f}, people's {c.human_r:.2f} (difference "
            f"{with_ci(c.difference, c.difference_ci)} over {c.n_pairs} pairs).")
