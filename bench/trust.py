"""Trust or escalate (`fairval judge trust`, analysis.trust) on held-out pairs: does the judge agree with
people at least as often as guaranteed, above the threshold found on a few rated pairs?

Each simulated study is one of bench/active.py's (3,000 pairs, 3 raters each, the judge's probabilities
in both orders combined as in 004 App. H), in its three worlds (clear pairs, contested pairs, and a judge
whose stated confidence is unrelated to its error: its confidences shuffled across pairs) and for judges
of ρ ≈ 0.95, 0.8 and 0.5. The judge's answer on a pair is the most likely of A, B, C, its confidence that
answer's probability; people's answer is the majority sign of the 3 raters (ties left out, as the
command does). The threshold is found on CALIBRATION pairs drawn at random (agreement 0.9, risk 0.05);
every other pair is held out. Reported per world and judge, over the studies: the share of studies whose
held-out agreement above the threshold reaches 0.9 (the guarantee says at least 95%, up to the held-out
pairs' own sampling noise), the held-out agreement (median), the share of pairs left to the judge alone,
and how often no threshold could be trusted.

Then `study sample --escalate` on the held-out pairs (the calibration pairs play the pilot): people's
majority labels the pairs below the threshold (a tie counts 0), the judge's answer the rest. Reported:
the share of pairs that went to people (median), and how far H from those labels (share +1 minus share
−1) lies from people's own on every held-out pair: the share of studies within the bound the command
states (2 × share trusted × (1 − agreement), a bound in expectation when the guarantee holds), and the
median error.
"""
from __future__ import annotations

import numpy as np

from bench.active import JUDGES, WORLDS, study
from fairval.analysis.trust import trust_threshold

CALIBRATION, AGREEMENT, RISK = 300, 0.9, 0.05


def _answers(s: dict, rng: np.random.Generator, unrelated: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The judge's answer (+1, −1, 0), its confidence, and people's majority sign (NaN on a tie)."""
    best = s["r"].argmax(1)
    answer = np.array([1, -1, 0])[best]
    confidence = s["r"][np.arange(len(best)), best]
    if unrelated:
        confidence = rng.permutation(confidence)
    signs = np.select([s["votes"] == 0, s["votes"] == 1], [1, -1], 0)
    majority = np.full(len(best), np.nan)
    for k, row in enumerate(signs):
        values, counts = np.unique(row, return_counts=True)
        top = counts.max()
        if (counts == top).sum() == 1:
            majority[k] = values[counts.argmax()]
    return answer, confidence, majority


def held_out(rho: float, world: str, studies: int, seed: int = 11) -> dict:
    rng = np.random.default_rng(seed)
    options = WORLDS[world]
    met, agreement, trusted, none = [], [], [], 0
    escalated, within, error = [], [], []
    for _ in range(studies):
        s = study(rng, JUDGES[rho], clear=options["clear"])
        answer, confidence, majority = _answers(s, rng, options.get("unrelated", False))
        known = np.flatnonzero(~np.isnan(majority))
        chosen = rng.choice(known, size=CALIBRATION, replace=False)
        rest = np.setdiff1d(known, chosen)
        found = trust_threshold(confidence[chosen], answer[chosen] == majority[chosen], agreement=AGREEMENT, risk=RISK)
        if found.threshold is None:
            none += 1
            continue
        above = rest[confidence[rest] >= found.threshold]
        realised = float(np.mean(answer[above] == majority[above]))
        met.append(realised >= AGREEMENT)
        agreement.append(realised)
        trusted.append(float(np.mean(confidence >= found.threshold)))
        main = np.setdiff1d(np.arange(len(answer)), chosen)          # every other pair, ties included
        people = np.nan_to_num(majority[main])
        sure = confidence[main] >= found.threshold
        labels = np.where(sure, answer[main], people)
        gap = abs(np.mean(labels == 1) - np.mean(labels == -1) - (np.mean(people == 1) - np.mean(people == -1)))
        escalated.append(1 - float(np.mean(sure)))
        within.append(gap <= 2 * float(np.mean(sure)) * (1 - AGREEMENT))
        error.append(gap)
    return {"met": float(np.mean(met)) if met else None, "agreement": float(np.median(agreement)) if agreement else None,
            "trusted": float(np.median(trusted)) if trusted else 0.0, "none": none / studies,
            "escalated": float(np.median(escalated)) if escalated else None,
            "within": float(np.mean(within)) if within else None, "error": float(np.median(error)) if error else None}


def run(folder, quick: bool = False) -> list[str]:
    studies = 40 if quick else 200
    lines = [f"trust or escalate, agreement {AGREEMENT} with risk {RISK}, threshold from {CALIBRATION} random rated "
             f"pairs, checked on the other pairs of each study ({studies} studies per line):"]
    for rho in JUDGES:
        for world in WORLDS:
            r = held_out(rho, world, studies)
            shown = "no threshold in any study" if r["met"] is None else (
                f"held-out agreement ≥ {AGREEMENT} in {r['met']:.1%} of studies (median {r['agreement']:.3f}), "
                f"judge alone on a median {r['trusted']:.0%} of pairs")
            lines.append(f"judge of noise for ρ ≈ {rho}, {world}: {shown}; no threshold trusted in {r['none']:.0%}")
            if r["escalated"] is not None:
                lines.append(f"  --escalate: people on a median {r['escalated']:.0%} of pairs; H from the labels within "
                             f"its stated bound in {r['within']:.1%} of studies (median error {r['error']:.4f})")
    return lines
