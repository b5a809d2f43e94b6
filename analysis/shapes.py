"""The shapes of analysis/'s answers shared by its modules: the JSON-ready states a study keeps between
decisions (RunningCS's, the chance rules), as TypedDicts because they are stored as JSON, and the frozen
results of the active design and the anytime sequences."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypedDict

import numpy as np
import numpy.typing as npt

from fairval.analysis.interval import Interval
from fairval.analysis.reasons import Reason

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Sequenced:
    """confidence_sequence's answer: the observations' mean, the interval after the last of them, n and the
    spread on the unit scale; `reason` when there is no interval."""
    value: float | None
    ci: Interval | None
    n: int
    sd: float | None
    reason: Reason | None = None


@dataclass(frozen=True, slots=True)
class AdaptiveInterval:
    """running_adaptive.interval's answer: H's estimate and anytime interval over the decided prefix (None
    before 2 kept pairs, or if the running interval became empty), its kept (complete) and decided pairs."""
    value: float | None
    ci: Interval | None
    n_pairs_complete: int
    n_decided: int


class RunningState(TypedDict):
    """RunningCS as JSON holds it."""
    n: int
    mean: float
    m2: float
    low: float | None
    high: float | None
    total: float
    weight: float


class UniformRule(TypedDict):
    rule: Literal["uniform"]
    chance: float


class SaturatedRule(TypedDict):
    rule: Literal["saturated"]
    rest: float


class WaterRule(TypedDict):
    rule: Literal["water"]
    slope: float
    base: float


# rule_constants' answer, as a study's state keeps it in JSON
Rule = UniformRule | SaturatedRule | WaterRule


@dataclass(frozen=True, slots=True)
class Evidence:
    """What rated pairs say of one mix τ (mix_evidence): its variance relative to uniform's, and the
    one-sided 90% bound on the change."""
    relative: float
    upper: float


@dataclass(frozen=True, slots=True, eq=False)
class ErrorModel:
    """expected_squared_errors' answer: per study pair its expected squared residual, and the line's slope
    with its one-sided 90% lower bound (not below 0)."""
    expected: Floats
    slope: float
    slope_lower: float


@dataclass(frozen=True, slots=True)
class FloorChoice:
    """choose_floor's answer: the floor, the pilot's line (slope, its lower bound), its pairs, and each
    floor's predicted variance relative to uniform's."""
    floor: float
    slope: float
    slope_lower: float
    n_pilot: int
    relative_variance: dict[float, float]


@dataclass(frozen=True, slots=True, eq=False)
class AdaptiveTerms:
    """Per decided pair, Z_t and the bounds known before it."""
    terms: Floats
    lows: Floats
    highs: Floats
