"""analysis.sequential.running_sets kept one observation at a time: the same bets (planned), the same
capital on the same grid of m and the same running intersection, as a JSON-ready state, so a study's
stopping rule steps it when a pair completes (O(grid)) instead of re-betting over every pair (O(n·grid)).
The operations are running_sets' own, in its order, so the ends are the same numbers."""
from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from fairval.analysis.sequential import ALPHA, GRID, _caps, _ends

_M = np.linspace(0.0, 1.0, GRID)
_CAP_UP, _CAP_DOWN = _caps(_M, 0.0, 1.0)

# The state as JSON holds it (a study's stopping rule stores it between pairs): numbers, None, lists and the
# grid's arrays packed as base64 text.
State = dict[str, Any]


def start(prior_var: float = 0.25, means: tuple[float, float] | None = None) -> State:
    """The state before any observation in [0, 1]. means: the range the mean can lie in, where the grid
    of m lies (running_sets' `means`; all of [0, 1] by default)."""
    zeros = np.zeros(GRID)
    return {"t": 0, "sum": 0.0, "sq": 0.0, "mean": 0.5, "var": prior_var, "prior_var": prior_var,
            "up": _packed(zeros), "down": _packed(zeros), "alive": _packed(np.ones(GRID, bool)),
            "low": None, "high": None, **({"means": [float(means[0]), float(means[1])]} if means else {})}


def step(state: State, x: float, *, planned: int, alpha: float = ALPHA, population: int | None = None,
         earlier: float | None = None, bounds: tuple[float, float] | None = None) -> State:
    """The state after one more observation x in [0, 1] (clipped to it, as running_interval does).
    population, earlier: running_sets' without-replacement form (a uniform sample of a set of N), with
    earlier the sum of the observations before x as x counts them (by default their sum), unit scale.
    bounds: the observation's own (a, b) inside [0, 1], known before it (running_sets' `steps`)."""
    x = min(max(float(x), 0.0), 1.0)
    i = state["t"]
    t = i + 1
    bet = math.sqrt(2 * math.log(2 / alpha) / (state["var"] * float(planned)))     # from the past only
    deviation = x - state["mean"]
    total, squares = state["sum"] + x, state["sq"] + deviation * deviation
    alive = _unpacked(state["alive"], bool)
    grid = _grid(state)
    target, cap_up, cap_down = grid, _CAP_UP, _CAP_DOWN
    if grid is not _M or bounds is not None:
        cap_up, cap_down = _caps(grid, *(bounds or (0.0, 1.0)))
    if population is not None:              # the mean of the values left, for each m
        target = (population * grid - (state["sum"] if earlier is None else earlier)) / (population - i)
        alive &= (target > -1e-9) & (target < 1 + 1e-9)
        target = np.clip(target, 0.0, 1.0)
        cap_up, cap_down = _caps(target, 0.0, 1.0)
    up = _unpacked(state["up"], float) + np.log1p(np.minimum(bet, cap_up) * (x - target))
    down = _unpacked(state["down"], float) + np.log1p(-np.minimum(bet, cap_down) * (x - target))
    alive &= np.logaddexp(up, down) + math.log(0.5) < math.log(1 / alpha)
    low, high = _ends(alive, grid)
    return {**state, "t": t, "sum": total, "sq": squares, "mean": (0.5 + total) / (t + 1),
            "var": (state["prior_var"] + squares) / (t + 1), "up": _packed(up), "down": _packed(down),
            "alive": _packed(alive), "low": None if math.isnan(low) else low, "high": None if math.isnan(high) else high}


def _grid(state: State) -> npt.NDArray[np.float64]:
    """The grid of m: running_sets' np.linspace(means[0], means[1], GRID)."""
    return _M if "means" not in state else np.linspace(state["means"][0], state["means"][1], GRID)


def _packed(a: npt.NDArray[Any]) -> str:
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode("ascii")


def _unpacked(text: str, dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    return np.frombuffer(base64.b64decode(text), dtype=dtype).copy()
