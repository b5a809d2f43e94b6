"""H per group pair, by stratified prediction-powered inference (Fisch et al., "Stratified Prediction-Powered
Inference for Hybrid Language Model Evaluation", NeurIPS 2024): the pairs are split by the groups they
compare (group_a vs group_b), PPI++ runs within each stratum, and the strata's estimates make H as their
mean weighted by each stratum's share of the judged pairs, with se² = Σ w² se². Valid when people's pairs
were drawn at random within each stratum (a uniform draw is); an active draw is refused here, since its
chances would have to weight each stratum too."""
from __future__ import annotations

import math

import pandas as pd

from fairval.analysis import judge_validity as jv
from fairval.analysis.judge_validity import Z95, inside
from fairval.analysis.ppi import ppi_mean


def strata_of(items: pd.DataFrame) -> pd.Series:
    """item → "group_a vs group_b" (as imported)."""
    return pd.Series({r.item_id: f"{r.data.get('group_a', '?')} vs {r.data.get('group_b', '?')}"
                      for r in items.itertuples()}, dtype=object)


def by_pair_group(human: pd.Series, judge: pd.Series, items: pd.DataFrame, sample: dict | None) -> dict:
    """Per stratum: n pairs judged, n rated, H by PPI++ with its interval, sign agreement; and `stratified`,
    the overall H from the strata (or a reason)."""
    strata = strata_of(items)
    judge = judge.dropna()
    out, parts = {}, []
    for name, ids in strata.groupby(strata, sort=True).groups.items():
        in_stratum = judge[judge.index.isin(ids)]
        rated = jv.paired(human, in_stratum)
        unrated = in_stratum[~in_stratum.index.isin(rated.index)]
        estimate = (ppi_mean(rated["human"].to_numpy(), rated["judge"].to_numpy(), unrated.to_numpy())
                    if not (sample and sample.get("design") == "adaptive") else
                    {"value": None, "ci": None, "reason": "under the adaptive design a group's pairs are not a random "
                     "sample with known chances; harm.ppi weights every pair by its own"})
        out[name] = {"n_pairs": len(in_stratum), "n_rated": len(rated), "ppi": estimate,
                     "sign_agreement_ci": jv.sign_agreement(human, in_stratum)["ci"]}
        parts.append((len(in_stratum), estimate))
    return {"groups": out, "stratified": stratified(parts, sample)}


def stratified(parts: list[tuple[int, dict]], sample: dict | None) -> dict:
    if sample and sample.get("design") in ("active", "adaptive"):
        return {"value": None, "ci": None, "reason": "an active sample's chances would weight each stratum; "
                "use harm.ppi, which weights by them"}
    total = sum(n for n, _ in parts)
    missing = [e for n, e in parts if n and e["value"] is None]
    if not total or missing:
        return {"value": None, "ci": None, "reason": "every stratum needs at least 2 rated pairs and 1 left to the "
                "judge (see each group's ppi.reason)"}
    value, variance = 0.0, 0.0
    for n, e in parts:
        w = n / total
        se = (e["ci"][1] - e["ci"][0]) / (2 * Z95)
        value += w * e["value"]
        variance += (w * se) ** 2
    half = Z95 * math.sqrt(variance)
    return {"value": float(value), "ci": list(inside((value - half, value + half), -1.0, 1.0)),
            "strata": len(parts), "n_pairs": total}



