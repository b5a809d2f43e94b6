"""Trust or escalate (Jung, Brahman and Choi, "Trust or Escalate: LLM Judges with Provable Guarantees for
Human Agreement", ICLR 2025): the judge-confidence threshold above which the judge agrees with people at
least `agreement` of the time, with probability at least 1 − `risk`, found on human-rated pairs.

For thresholds from the most confident down, H0_j: "among pairs with confidence ≥ λ_j, the judge disagrees
with people more than 1 − agreement of the time" is tested with the exact binomial tail,
p_j = P(Binomial(n_j, 1 − agreement) ≤ disagreements_j), and rejected when p_j ≤ risk. Fixed-sequence
testing: the thresholds are tested in that order and testing stops at the first H0 not rejected, so the
chance of trusting any threshold that does not meet the level is at most `risk` (the family-wise error of
fixed-sequence testing, Bauer 1991), for exchangeable rated and unrated pairs. The answer is the last
threshold rejected (the lowest, so the most pairs are left to the judge), or none."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats


@dataclass(frozen=True, slots=True)
class Test:
    """One threshold tested: the pairs at or above it, the judge's disagreements there, the binomial p."""
    threshold: float
    n: int
    disagreements: int
    p_value: float


@dataclass(frozen=True, slots=True)
class Trust:
    """The threshold chosen (None when none can be trusted), the pairs at or above it, the judge's
    disagreements and the p-value there, the level asked for, and every threshold tested, in order."""
    threshold: float | None
    n_above: int
    disagreements: int | None
    p_value: float | None
    agreement: float
    risk: float
    tested: tuple[Test, ...]


def trust_threshold(confidence: npt.ArrayLike, agrees: npt.ArrayLike, *, agreement: float = 0.9,
                    risk: float = 0.05, minimum: int = 10) -> Trust:
    """confidence: the judge's confidence per human-rated pair; agrees: whether its answer is the people's.
    Tests thresholds, highest first, on a grid of the rated pairs' confidences: the first where a test can
    reject at all (n with agreement^n ≤ risk: 29 pairs for 0.9 and 0.05, and at least `minimum`), then every
    twentieth of the pairs (a test that fails by chance early ends the sequence, so it is not tried at
    every pair).
    """
    if not 0 < agreement < 1 or not 0 < risk < 1:
        raise ValueError("agreement and risk must lie strictly between 0 and 1")
    c, ok = np.asarray(confidence, float), np.asarray(agrees, bool)
    order = np.argsort(-c, kind="stable")
    c, ok = c[order], ok[order]
    tested: list[Test] = []
    chosen: Test | None = None
    first = max(minimum, int(np.ceil(np.log(risk) / np.log(agreement))))
    step, last = max(1, len(c) // 20), first - 1
    for k in range(len(c)):
        if k + 1 < len(c) and c[k + 1] == c[k]:
            continue                                     # a threshold takes every pair of its confidence
        n = k + 1
        if n < first or (n - last < step and n != len(c)):
            continue
        last = n
        errors = int(n - ok[:n].sum())
        p = float(stats.binom.cdf(errors, n, 1 - agreement))
        tested.append(Test(float(c[k]), n, errors, p))
        if p > risk:
            break
        chosen = tested[-1]
    if chosen is None:
        return Trust(None, 0, None, None, agreement, risk, tuple(tested))
    return Trust(chosen.threshold, chosen.n, chosen.disagreements, chosen.p_value, agreement, risk, tuple(tested))
