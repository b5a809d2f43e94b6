"""The shapes of analysis/'s answers that are still dicts: JSON-ready states a study keeps between
decisions (RunningCS's, the chance rules) and the active design's and anytime sequences' results."""
from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]


class Sequenced(TypedDict):
    """confidence_sequence's answer; `reason` only when the running interval became empty."""
    value: float | None
    ci: list[float] | None
    n: int
    sd: float | None
    reason: NotRequired[str]


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


class Evidence(TypedDict):
    """What rated pairs say of one mix τ (mix_evidence)."""
    relative: float
    upper: float


class ErrorModel(TypedDict):
    """expected_squared_errors' answer: per study pair its expected squared residual, and the line's slope."""
    expected: Floats
    slope: float
    slope_lower: float


class FloorChoice(TypedDict):
    floor: float
    slope: float
    slope_lower: float
    n_pilot: int
    relative_variance: dict[float, float]


class AdaptiveTerms(TypedDict):
    """Per decided pair, Z_t and the bounds known before it."""
    terms: Floats
    lows: Floats
    highs: Floats
