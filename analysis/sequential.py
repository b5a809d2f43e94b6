"""Anytime-valid intervals for the mean of bounded observations, valid at every n: the hedged-capital
betting confidence sequence of Waudby-Smith and Ramdas ("Estimating means of bounded random variables
by betting", JRSS-B 2024, Theorem 3 with the predictable plug-in bets of their eq. (26)).

For x_1, x_2, … in [0, 1] with a common conditional mean μ (pairs rated in an order unrelated to their
scores), a bettor who stakes λ_i on x_i − m grows the capital
    K_t(m) = max(½ ∏(1 + λ⁺_i (x_i − m)), ½ ∏(1 − λ⁻_i (x_i − m)))
and, by Ville's inequality, K_t(μ) stays below 1/α at every t with probability ≥ 1 − α. The set
{m : K_t(m) < 1/α}, intersected over t, is a (1 − α) confidence sequence from the first observation on:
valid however often it is looked at and whenever the study stops. It is never of zero width: a mean
next to the data's is not rejected until enough capital is won against it.

The set is found on a grid of m; each end is moved out to the nearest rejected grid point, so the
interval can only be wider than the exact one.

The betting sequence is exact but sized by the observations' range: PPI terms span about 4 while they
vary by about 0.24, so its bets hit their cap and it is far wider than a fixed-n interval. From
ASYMPTOTIC_FROM observations the asymptotic sequence (below) takes over; anytime_running makes that
choice, fixed in advance, each part spending half of alpha, and analysis.guarantees says in words what
the result guarantees. Both come in a without-replacement form (Waudby-Smith and Ramdas, NeurIPS 2020)
for a uniform sample of a finite set of fixed values: the interval is then for the set's own mean, and
closes in on it as the sample nears the set. H is not such a mean (a pair's ratings are a draw from what
people would answer, not a fixed value), so H's interval does not use it (issue 53); sign agreement does.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from fairval.analysis.interval import Interval
from fairval.analysis.reasons import Why, because
from fairval.analysis.shapes import Floats, RunningState, Sequenced

ALPHA = 0.05
GRID = 2001                 # points on [0, 1]: ends are exact to 1/2000 of the range, widened outward
BET_CAP = 0.5               # c: bets stay below c / m (or c / (1 − m)), as in the paper's experiments


def _bets(x: Floats, alpha: float, planned: int | None = None, prior_var: float = 0.25) -> Floats:
    """λ̇_i = √(2 log(2/α) / (σ̂²_{i−1} i log(1 + i))), from the observations before i only (predictable);
    with a planned number of observations, √(2 log(2/α) / (σ̂²_{i−1} · planned)): bets sized for the
    sample the study plans, tightest there (WSR §B's tuning, like an asymptotic sequence's t_opt)."""
    t = np.arange(1, len(x) + 1)
    mean = (0.5 + np.cumsum(x)) / (t + 1)                               # μ̂_t, shrunk towards ½
    prev_mean = np.concatenate([[0.5], mean[:-1]])
    var = (prior_var + np.cumsum((x - prev_mean) ** 2)) / (t + 1)       # σ̂²_t, shrunk towards ¼ (or prior_var)
    prev_var: Floats = np.concatenate([[prior_var], var[:-1]])
    scale = np.full(len(x), float(planned)) if planned else t * np.log1p(t)
    return np.sqrt(2 * math.log(2 / alpha) / (prev_var * scale))


def running_sets(x: np.ndarray, *, alpha: float = ALPHA, grid: int = GRID, planned: int | None = None,
                 steps: tuple[np.ndarray, np.ndarray] | None = None, prior_var: float = 0.25,
                 means: tuple[float, float] = (0.0, 1.0), population: int | None = None,
                 past: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) after each observation in [0, 1]: the running intersection of the betting sets.

    steps: each observation's own bounds (lows, highs) inside [0, 1], known before it arrives
    (predictable), as a weighted term's are from its recorded chance. A bet is capped by its own
    step's bounds, so a few wide steps do not shrink every bet (the capital stays positive whatever
    each x_i is). prior_var: the variance the bets start from (¼: the widest an observation in [0, 1]
    can have); means: the range the mean can lie in, where the grid of m lies. population: N, for
    observations drawn uniformly without replacement from a finite set of N (Waudby-Smith and Ramdas
    2020): each bet is on x_i against the mean of the values not yet drawn, (N m − Σ_{j<i} x_j)/(N − i + 1),
    and an m that puts that mean outside [0, 1] is rejected, so the set closes in on the set's mean as the
    sample nears all of it. past: Σ_{j<i} x_j as observation i counts the earlier ones (a PPI term's
    λ_{i−1} applied to them), on the unit scale; by default the sum of the earlier x."""
    x = np.asarray(x, float)
    if population is not None and (steps is not None or len(x) > population):
        raise ValueError("a without-replacement sequence takes at most `population` observations of one range")
    if len(x) and (x.min() < 0 or x.max() > 1):
        raise ValueError("betting confidence sequences take observations in [0, 1]")
    m = np.linspace(means[0], means[1], grid)
    lam = _bets(x, alpha, planned, prior_var)
    low, high = np.empty(len(x)), np.empty(len(x))
    log_up = np.zeros(grid)
    log_down = np.zeros(grid)
    threshold = math.log(1 / alpha)
    alive = np.ones(grid, bool)                 # the running intersection: a rejected m stays rejected
    lows, highs = steps if steps is not None else (np.zeros(len(x)), np.ones(len(x)))
    cap_up, cap_down = _caps(m, 0.0, 1.0)
    target = m
    earlier = np.concatenate([[0.0], np.cumsum(x)[:-1]]) if past is None else np.asarray(past, float)
    for i, (xi, li, a, b) in enumerate(zip(x, lam, lows, highs)):
        if steps is not None:
            cap_up, cap_down = _caps(m, a, b)
        if population is not None:          # the mean of the values left, for each m
            target = (population * m - earlier[i]) / (population - i)
            alive &= (target > -1e-9) & (target < 1 + 1e-9)
            target = np.clip(target, 0.0, 1.0)
            cap_up, cap_down = _caps(target, 0.0, 1.0)
        log_up += np.log1p(np.minimum(li, cap_up) * (xi - target))
        log_down += np.log1p(-np.minimum(li, cap_down) * (xi - target))
        capital = np.logaddexp(log_up, log_down) + math.log(0.5)
        alive &= capital < threshold
        low[i], high[i] = _ends(alive, m)
    return low, high


def _caps(m: np.ndarray, a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """The largest bets up and down at each m for an observation known to lie in [a, b]: c / (m − a) and
    c / (b − m), so that 1 ± λ (x − m) ≥ 1 − c > 0."""
    with np.errstate(divide="ignore"):
        return np.where(m > a, BET_CAP / (m - a), np.inf), np.where(m < b, BET_CAP / (b - m), np.inf)


def _ends(alive: np.ndarray, m: np.ndarray) -> tuple[float, float]:
    """The interval's ends: the rejected grid points just outside the kept ones (or the range's ends)."""
    kept = np.flatnonzero(alive)
    if not len(kept):                           # every m rejected: only by chance (probability ≤ α)
        return math.nan, math.nan
    first, last = kept[0], kept[-1]
    return float(m[max(first - 1, 0)]), float(m[min(last + 1, len(m) - 1)])


def running_interval(x: np.ndarray, *, lower: float, upper: float, planned: int | None = None,
                     alpha: float = ALPHA, population: int | None = None,
                     past: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """running_sets for observations known to lie in [lower, upper], on their own scale (past too)."""
    span = upper - lower
    unit_past = None if past is None else (np.asarray(past, float) - np.arange(len(past)) * lower) / span
    low, high = running_sets(np.clip((np.asarray(x, float) - lower) / span, 0, 1), alpha=alpha, planned=planned,
                             population=population, past=unit_past)
    return lower + span * low, lower + span * high


def stepwise_interval(x: np.ndarray, lows: np.ndarray, highs: np.ndarray, *, lower: float, upper: float,
                      means: tuple[float, float], typical_span: float, planned: int | None = None,
                      alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """running_sets for observations each known to lie in its own [lows_i, highs_i] (predictable), all
    inside [lower, upper], with a mean in `means`; the bets start from the variance of an observation
    spanning typical_span (not the whole envelope's, which would keep them timid for long)."""
    span = upper - lower
    def unit(v: npt.ArrayLike) -> Floats:
        return (np.asarray(v, np.float64) - lower) / span
    low, high = running_sets(np.clip(unit(x), 0, 1), alpha=alpha, planned=planned,
                             steps=(np.clip(unit(lows), 0, 1), np.clip(unit(highs), 0, 1)),
                             prior_var=0.25 * (typical_span / span) ** 2,
                             means=(max(float(unit(means[0])), 0.0), min(float(unit(means[1])), 1.0)))
    return lower + span * low, lower + span * high


def confidence_sequence(x: np.ndarray, *, lower: float, upper: float, planned: int | None = None,
                        alpha: float = ALPHA) -> Sequenced:
    """The interval for the mean of observations known to lie in [lower, upper], after the last of them
    (in the order they arrived): value (their mean), ci, n and the spread on the unit scale."""
    x = np.asarray(x, float)
    n = len(x)
    if n < 1:
        return Sequenced(None, None, 0, None, because(Why.NO_OBSERVATION))
    low, high = running_interval(x, lower=lower, upper=upper, planned=planned, alpha=alpha)
    unit_sd, mean = float(x.std(ddof=1)) / (upper - lower) if n > 1 else 0.5, float(x.mean())
    if math.isnan(low[-1]):
        return Sequenced(mean, None, n, unit_sd, because(Why.RUNNING_EMPTY))
    return Sequenced(mean, Interval(float(low[-1]), float(high[-1])), n, unit_sd)


# ---- The asymptotic confidence sequence (Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas, "Time-uniform central
# limit theory and asymptotic confidence sequences", Ann. Statist. 2024, Theorem 2.2): the Gaussian-mixture
# boundary with the running variance, tuned to the planned sample, intersected over time. It needs only a
# finite variance, not a known range, so PPI terms that span 4 but vary by 0.24 get a width set by the 0.24.
# Its guarantee is asymptotic: the chance that it ever misses tends to ≤ α as the first look moves out, so
# it starts at ASYMPTOTIC_FROM observations (the betting sequence, exact, covers the looks before).

ASYMPTOTIC_FROM = 30        # below this many observations σ̂ is too rough to lean on: the exact sequence is used


def mixture_rho2(planned: int, alpha: float = ALPHA) -> float:
    """ρ² of the unit-variance boundary that is narrowest at t = planned: u = planned·ρ² + 1 solves
    u − log u = 1 − 2 log α (u > 1; = −W₋₁(−α²/e), the exact optimum; the paper's closed form
    (−2 log α + log(1 − 2 log α)) / t* approximates it)."""
    c = 1 - 2 * math.log(alpha)
    u = c + math.log(c)                         # the root lies just above; Newton converges in a few steps
    for _ in range(60):
        u_next = u - (u - math.log(u) - c) / (1 - 1 / u)
        if abs(u_next - u) < 1e-14 * u:
            break
        u = u_next
    return (u - 1) / max(int(planned), 1)


@overload
def mixture_margin(t: float, var: float, *, planned: int, alpha: float = ALPHA) -> np.float64: ...
@overload
def mixture_margin(t: npt.NDArray[Any], var: Floats, *, planned: int, alpha: float = ALPHA) -> Floats: ...
def mixture_margin(t: float | npt.NDArray[Any], var: float | Floats, *, planned: int,
                   alpha: float = ALPHA) -> np.float64 | Floats:
    """The half-width after t observations whose running variance (1/t form) is var:
    sqrt(2(t σ̂² ρ_σ² + 1)/(t² ρ_σ²) · log(sqrt(t σ̂² ρ_σ² + 1)/α)) with ρ_σ² = ρ²/σ̂², i.e. σ̂ times the
    unit-variance boundary at ρ² = mixture_rho2(planned) (the normalisation of drconfseq's asymptotic_confseq)."""
    rho2 = mixture_rho2(planned, alpha)
    n = np.asarray(t, np.float64)
    v = n * rho2 + 1
    return np.sqrt(np.asarray(var, np.float64)) * np.sqrt(2 * v / (n * n * rho2) * np.log(np.sqrt(v) / alpha))


@dataclass(frozen=True)
class RunningCS:
    """The asymptotic sequence's whole state, O(1) in size: n, the running mean and Welford's M2 (the sum
    of squared deviations), the centre's sums (centre = total / weight: the mean, or for a finite set of
    pairs the without-replacement centre) and the running intersection's ends (None until n reaches
    `start`). A plain value: to_dict/from_dict round-trip through JSON."""
    n: int = 0
    mean: float = 0.0
    m2: float = 0.0
    low: float | None = None
    high: float | None = None
    total: float = 0.0
    weight: float = 0.0

    @property
    def var(self) -> float:
        """σ̂²_t in the paper's 1/t form."""
        return self.m2 / self.n if self.n else math.nan

    @property
    def interval(self) -> tuple[float, float] | None:
        """(low, high), or None before the first look or if the intersection became empty (chance ≤ α)."""
        if self.low is None or self.high is None or self.low > self.high:
            return None
        return (self.low, self.high)

    def to_dict(self) -> RunningState:
        return {"n": self.n, "mean": self.mean, "m2": self.m2, "low": self.low, "high": self.high,
                "total": self.total, "weight": self.weight}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunningCS:
        return cls(n=int(d["n"]), mean=float(d["mean"]), m2=float(d["m2"]),
                   low=None if d.get("low") is None else float(d["low"]),
                   high=None if d.get("high") is None else float(d["high"]),
                   total=float(d.get("total", d["n"] * d["mean"])), weight=float(d.get("weight", d["n"])))


def step(state: RunningCS, x: float, *, planned: int, alpha: float = ALPHA, start: int = ASYMPTOTIC_FROM,
         population: int | None = None, past: float | None = None, prior_var: float = 0.0,
         intersect: bool = True) -> RunningCS:
    """The state after one more observation x: O(1). The interval is the running intersection, over
    n = start, start + 1, …, of centre ± margin; `planned` (the study's t*), `start` and `population`
    must stay the same for the whole sequence.

    population: N, for observations drawn uniformly without replacement from a finite set of N (the
    study's pairs): the without-replacement martingale of Waudby-Smith & Ramdas (2020) — x_i minus the
    mean of the values not yet drawn, (N μ − P_{i−1}) / (N − i + 1) — under the asymptotic boundary, so
    the interval is for μ over the N and narrows to a sliver as the sample nears all of them. past:
    P_{i−1}, the sum of the earlier observations as this one's terms would count them (a PPI term's
    λ_{i−1} applied to the earlier pairs); by default the sum of the earlier x. prior_var: the boundary
    uses max(σ̂², prior_var / n), so identical observations never give an interval of zero width (the
    widest variance the range allows, spread over n: gone asymptotically, so the guarantee is unchanged).
    intersect=False: the interval
    at n alone, not the running intersection (a sequence whose intervals drift, as weighted terms' do
    until their rare large terms are seen, would otherwise narrow by disagreeing with itself)."""
    n = state.n + 1
    delta = float(x) - state.mean
    mean = state.mean + delta / n
    m2 = state.m2 + delta * (float(x) - mean)
    if population is None:
        total, weight = state.total + float(x), state.weight + 1.0
    else:
        if n > population:
            raise ValueError(f"observation {n} of a set of {population}: more than the set holds")
        left = population - n + 1
        earlier = state.n * state.mean if past is None else float(past)
        total, weight = state.total + float(x) + earlier / left, state.weight + population / left
    if n < start:
        return RunningCS(n, mean, m2, None, None, total, weight)
    half = n * float(mixture_margin(n, max(m2 / n, prior_var / n), planned=planned, alpha=alpha)) / weight
    low, high = total / weight - half, total / weight + half
    if intersect and state.low is not None and state.high is not None:
        low, high = max(low, state.low), min(high, state.high)
    return RunningCS(n, mean, m2, low, high, total, weight)


def running_asymptotic(x: Floats, *, planned: int, alpha: float = ALPHA, start: int = ASYMPTOTIC_FROM,
                       population: int | None = None, past: Floats | None = None, prior_var: float = 0.0,
                       intersect: bool = True) -> tuple[Floats, Floats]:
    """(low, high) after each observation, vectorised: the same numbers as folding `step` over x (NaN
    before `start`); low > high where the intersection became empty. past, prior_var, intersect: as
    step's (past one per x)."""
    x = np.asarray(x, float)
    t = np.arange(1, len(x) + 1)
    if not len(x):
        return np.empty(0), np.empty(0)
    if population is not None and len(x) > population:
        raise ValueError(f"{len(x)} observations of a set of {population}: more than the set holds")
    shift = x[0]                                  # centred sums keep the variance exact to rounding
    s1 = np.cumsum(x - shift)
    s2 = np.cumsum((x - shift) ** 2)
    var = np.maximum(s2 / t - (s1 / t) ** 2, prior_var / t)
    if population is None:
        total, weight = np.cumsum(x), t.astype(float)
    else:
        earlier = np.concatenate([[0.0], np.cumsum(x)[:-1]]) if past is None else np.asarray(past, float)
        left = population - t + 1
        total, weight = np.cumsum(x + earlier / left), np.cumsum(population / left)
    half = t * mixture_margin(t, var, planned=planned, alpha=alpha) / weight
    low, high = total / weight - half, total / weight + half
    low[: start - 1], high[: start - 1] = -np.inf, np.inf
    if intersect:
        low, high = np.maximum.accumulate(low), np.minimum.accumulate(high)
    low[: start - 1], high[: start - 1] = np.nan, np.nan
    return low, high


def anytime_running(x: Floats, *, lower: float, upper: float, planned: int, alpha: float = ALPHA,
                    start: int | None = ASYMPTOTIC_FROM, population: int | None = None, past: Floats | None = None,
                    steps: tuple[npt.ArrayLike, npt.ArrayLike] | None = None, means: tuple[float, float] | None = None,
                    typical_span: float | None = None, intersect: bool = True, trusted: npt.ArrayLike | None = None
                    ) -> tuple[Floats, Floats]:
    """(low, high) after each observation. Below `start` the betting sequence (exact; observations in [lower, upper]
    or each in its own steps (lows, highs); a uniform draw from a set of `population`: without replacement), bets
    sized for `start`; from `start` on the asymptotic one (each n alone if not intersect) within the betting one's
    last interval; each with half of alpha (split_alpha), ever missing with chance ≤ alpha in the limit. start=None:
    betting, all of alpha. trusted (a flag per n): betting at every n, within the asymptotic interval where set."""
    x = np.asarray(x, float)
    head = x if start is None or trusted is not None else x[: start - 1]
    bets_for = planned if start is None else start
    each = alpha if start is None else split_alpha(alpha)
    if steps is None:
        low_b, high_b = running_interval(head, lower=lower, upper=upper, planned=bets_for, alpha=each,
                                         population=population, past=None if past is None else past[: len(head)])
    else:
        low_b, high_b = stepwise_interval(head, np.asarray(steps[0])[: len(head)], np.asarray(steps[1])[: len(head)],
                                          lower=lower, upper=upper, means=means or (lower, upper),
                                          typical_span=typical_span or (upper - lower), planned=bets_for, alpha=each)
    if start is None or (trusted is None and len(head) == len(x)):
        return low_b, high_b
    low, high = running_asymptotic(x, planned=planned, alpha=each, start=start, population=population, past=past,
                                   prior_var=((typical_span or (upper - lower)) / 2) ** 2, intersect=intersect)
    if trusted is not None:
        use = np.asarray(trusted, bool) & ~np.isnan(low)
        return np.where(use, np.maximum(low_b, low), low_b), np.where(use, np.minimum(high_b, high), high_b)
    if len(head) and not np.isnan(low_b[-1]):           # the betting part's last interval bounds the rest
        low[len(head):] = np.maximum(low[len(head):], low_b[-1])
        high[len(head):] = np.minimum(high[len(head):], high_b[-1])
    low[: len(head)], high[: len(head)] = low_b, high_b
    return low, high


def split_alpha(alpha: float = ALPHA) -> float:
    """Each part's share of alpha where a betting part hands over to an asymptotic one: half, so that
    the union of their misses (ever, at any n) has chance at most alpha."""
    return alpha / 2
