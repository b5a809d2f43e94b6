"""A pair study under trust or escalate (`fairval study sample --escalate`, Jung, Brahman and Choi, ICLR
2025): the judge decides alone the pairs where its confidence reaches a threshold found on a pilot's rated
pairs; people rate every other pair. People's pairs are then chosen by the judge's confidence, not drawn at
random, so PPI and the anytime intervals do not apply. What does apply is the paper's guarantee: on pairs
like the trusted ones the judge's answer is people's majority answer at least `agreement` of the time,
with probability at least 1 − `risk`. The study's answer is one label per pair (the judge's where trusted,
people's majority elsewhere) and the share of +1 minus −1 labels, with the bias the guarantee allows."""
from __future__ import annotations

import numpy as np
import pandas as pd

from fairval.analysis.lmra import combine_orders
from fairval.analysis.reasons import Why, because
from fairval.annotate.material.importers import PROBABILITY_FIELDS as FIELDS
from fairval.annotate.results.blocks import Escalation, Pilot

REASON = because(Why.ESCALATED)


def judge_answers(lmra: pd.DataFrame) -> pd.DataFrame:
    """Per pair the judge's answer as a sign (+1 the first group's stereotype, −1 the other's, 0 none: the
    most likely of App. H's combined A, B, C) and its confidence (that answer's combined probability).
    Pairs without all six probabilities (imported scores alone) have no answer here."""
    rows = []
    for item, probabilities in zip(lmra["item_id"], lmra["probabilities"]):
        if not isinstance(probabilities, dict) or not all(f in probabilities for f in FIELDS):
            continue
        try:
            r = combine_orders([probabilities[f] for f in FIELDS[:3]], [probabilities[f] for f in FIELDS[3:]]).r
        except ValueError:
            continue
        best = int(np.argmax(r))
        rows.append({"item_id": item, "answer": (1, -1, 0)[best], "confidence": float(r[best])})
    return pd.DataFrame(rows, columns=["item_id", "answer", "confidence"])


def people_answers(ratings: pd.DataFrame) -> pd.Series:
    """Per pair the people's majority answer as a sign; a pair whose raters tie has none (left out)."""
    signs = np.sign(ratings["canonical"].astype(float))
    out = {}
    for item, part in signs.groupby(ratings["item_id"], observed=True):
        counts = part.value_counts()
        if len(counts) and (len(counts) == 1 or counts.iloc[0] > counts.iloc[1]):
            out[item] = int(counts.index[0])
    return pd.Series(out, dtype=float)


def escalation_numbers(items: pd.DataFrame, lmra: pd.DataFrame, ratings: pd.DataFrame, complete: set,
                       sample: dict) -> Escalation:
    """items: the study's real pairs (judge_only marks the trusted ones); lmra: the design's judge's rows;
    ratings: the scored question's kept ratings; complete: the pairs rated by all their raters.
    Labels: the judge's answer on a trusted pair, people's majority on a complete escalated pair (`tie`
    when its raters tie: neither +1 nor −1). `sign_balance` (also under its old key `h_signs`): the share
    of +1 minus the share of −1 labels over all pairs, given once every escalated pair is complete — not H,
    which averages people's scores, ties and splits included; `bias_bound`: how far that can be, in
    expectation, from people's own share when the guarantee holds: each trusted pair whose label is not
    people's moves the difference by at most 2/N, and at most (1 − agreement) of them are such (pairs whose
    raters would tie are outside the guarantee, as in `judge trust`)."""
    trusted = set(items.loc[items["judge_only"].astype(bool), "item_id"])
    judge = judge_answers(lmra[lmra["item_id"].isin(trusted)]).set_index("item_id")["answer"]
    rated = complete - trusted
    people = people_answers(ratings[ratings["item_id"].isin(rated)])
    labels = pd.concat([judge, people])
    n, n_trusted = len(items), len(trusted)
    counts = {str(k): int((labels == k).sum()) for k in (1, -1, 0)}
    counts["tie"] = len(rated) - len(people)
    waiting = n - n_trusted - len(rated)
    share = n_trusted / n if n else 0.0
    pilot = None if sample["pilot"] is None else Pilot.of(**sample["pilot"])
    out = {"threshold": sample["threshold"], "judge": sample["judge"], "agreement": sample["agreement"],
           "risk": sample["risk"], "pilot": pilot, "pairs": n, "trusted": n_trusted,
           "escalated": n - n_trusted, "escalated_complete": len(rated), "labels": counts,
           "bias_bound": 2 * share * (1 - sample["agreement"])}
    if waiting:
        out["h_signs"] = out["sign_balance"] = None
        out["reason"] = (f"{waiting} escalated pair(s) are not complete yet; the labels' sign balance needs every "
                         "pair's")
    else:
        out["h_signs"] = out["sign_balance"] = (counts["1"] - counts["-1"]) / n
    out["guarantee"] = guarantee_sentence(sample, n_trusted, n)
    return Escalation.of(**out)


def guarantee_sentence(sample: dict, trusted: int, pairs: int) -> str:
    pilot = sample["pilot"]
    return (f"{sample['judge']} decides {trusted:,} of {pairs:,} pairs alone, those where its confidence is at least "
            f"{sample['threshold']:.3f}; on such pairs its answer is people's majority answer at least "
            f"{sample['agreement']:.0%} of the time, with probability at least {1 - sample['risk']:.0%} (fixed-sequence "
            f"testing on the {pilot['pairs']:,} rated pairs of {pilot['study']!r}, valid when those pairs and this "
            "study's are alike: drawn from the same pool)")
