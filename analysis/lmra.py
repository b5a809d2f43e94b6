"""Combining an LLM judge's answers over both response orders (004 App. H)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class JudgeScore:
    r: tuple[float, float, float]     # combined probabilities of A, B, C in the true order
    score: float                      # r_A - r_B, in [-1, 1]


def _normalise(v: Sequence[float], name: str) -> list[float]:
    if len(v) != 3 or any(x < 0 for x in v):
        raise ValueError(f"{name} must be three non-negative probabilities for A, B, C, got {list(v)}")
    total = sum(v)
    if total <= 0:
        raise ValueError(f"{name} probabilities for A, B, C are all zero")
    return [x / total for x in v]


def combine_orders(p: Sequence[float], q: Sequence[float]) -> JudgeScore:
    """p: answer probabilities with the responses in true order; q: with them swapped.

    In the swapped order answer B names the true direction, so r_A ∝ min(p_A, q_B),
    r_B ∝ min(p_B, q_A), r_C ∝ min(p_C, q_C): a judge that just prefers a position is discounted.
    """
    p, q = _normalise(p, "p"), _normalise(q, "q")
    raw = (min(p[0], q[1]), min(p[1], q[0]), min(p[2], q[2]))
    total = sum(raw)
    if total <= 0:
        raise ValueError("the two orders disagree completely (every min(p, q) is 0); "
                         "no combined answer exists")
    r = (raw[0] / total, raw[1] / total, raw[2] / total)
    return JudgeScore(r, r[0] - r[1])
