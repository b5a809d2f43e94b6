"""The fairness judge's own audit (lmra.by_pair_group, analysis.judge_fairness) as table rows and sentences,
shared by the Calibration page, the report and the methods paragraph."""
from __future__ import annotations

from collections.abc import Callable

from fairval.annotate.outputs import formats
from fairval.annotate.results.blocks import JudgeFairness, LabelSwap

WELCH = "welch1951"
WELCH_BIBTEX = ("@article{welch1951,\n  author = {Welch, B. L.},\n  title = {On the Comparison of Several Mean "
                "Values: An Alternative Approach},\n  journal = {Biometrika},\n  volume = {38},\n  number = {3/4},\n"
                "  pages = {330--336},\n  year = {1951}\n}")


def _with_ci(value, ci) -> str:
    return formats.ratio(value) if not ci else f"{formats.ratio(value)} {formats.interval(ci)}"


def _p(p: float) -> str:
    return f"p {formats.p_value(p)}" if p < 0.001 else f"p = {formats.p_value(p)}"


def audit_rows(block: JudgeFairness | None) -> list[dict]:
    """One row a group pair: the judge's mean error (judge − people) with its interval, its sign agreement,
    and with the labels swapped, the share of its verdicts that followed the labels."""
    if block is None or not block.groups:
        return []
    return [{"groups": name, "rated": g.n_rated, "judge − people": _with_ci(g.mean_error, g.mean_error_ci),
             "sign agreement": _with_ci(g.sign_agreement, g.sign_agreement_ci),
             "follows the labels": _with_ci(g.label_swap.follows_labels, g.label_swap.follows_labels_ci)
             if g.label_swap is not None and g.label_swap.n else formats.DASH}
            for name, g in block.groups.items()]


def _swap_words(swap: LabelSwap | None) -> str:
    if swap is None or not swap.n:
        return ""
    return (f"asked again with the group labels swapped, its verdict followed the labels rather than the responses on "
            f"a share {_with_ci(swap.follows_labels, swap.follows_labels_ci)} of {formats.count(swap.n, 'pair')}")


def audit_sentence(block: JudgeFairness | None) -> str:
    """Is the judge's error the same for every group pair, and does its verdict follow the group labels?"""
    if block is None or not block.groups:
        return ""
    test = block.equal_error
    if test is None or test.p_value is None:
        words = f"Equal error across group pairs is not tested: {(test and test.reason) or 'no group pairs'}."
    else:
        errors = {n: g.mean_error for n, g in block.groups.items() if g.mean_error is not None}
        low = min(errors, key=lambda n: errors[n])
        words = (f"Is the judge's error the same for every group pair? Welch's test over "
                 f"{formats.count(len(test.group_pairs or ()), 'group pair')}: {_p(test.p_value)}"
                 + (" (it is not: its error differs by group pair)" if test.p_value < 0.05 else "")
                 + f"; the most negative error (the judge reports less harm than people) is {low}'s, "
                 f"{formats.ratio(errors[low])}.")
    swap = _swap_words(block.label_swap)
    if swap:
        return f"{words} {swap[0].upper()}{swap[1:]}."
    return (f"{words} Whether its verdict follows the group labels: `fairval lmra run STUDY --model "
            "MODEL --swap-groups` asks it again with them swapped.")


def methods_sentence(block: JudgeFairness | None, cite: Callable[[str], str]) -> str:
    """The audit for the methods paragraph: what was compared, by which test, and what the swap showed."""
    test = block.equal_error if block is not None else None
    if block is None or test is None or test.p_value is None or not test.df:
        return ""
    swap = _swap_words(block.label_swap)
    return (f"We audited the judge's own fairness: its mean error (judge minus people's mean score) per group pair, "
            f"with 95% intervals, was compared across {len(test.group_pairs or ())} group pairs by Welch's "
            f"heteroscedastic one-way test {cite(WELCH)} (F({test.df[0]:.0f}, {test.df[1]:.1f}) = {test.f:.2f}, "
            f"{_p(test.p_value)})" + (f"; {swap.replace('[', '(95% CI ').replace(']', ')')}"
                                                        if swap else "") + ".")
