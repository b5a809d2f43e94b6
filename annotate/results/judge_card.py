"""The judge's card for one judge of a pair study: its confidence against people's answers and its lean
towards longer responses against people's (analysis.judge_card), from the study's frames."""
from __future__ import annotations

import numpy as np
import pandas as pd

from fairval.analysis.judge_card import confidence_numbers, length_numbers
from fairval.analysis.lmra import combine_orders
from fairval.analysis.scores import as_numbers
from fairval.annotate.results.blocks import Confidence, ConfidenceBin, Length

PROBABILITIES = ("p_a", "p_b", "p_c", "q_a", "q_b", "q_c")


def confidence_block(rows: pd.DataFrame, ratings: pd.DataFrame, *, n_boot: int, seed: int) -> Confidence:
    """rows: one judge's scores (item_id, probabilities); ratings: the scored question's (item_id, canonical)."""
    # iterated, not get_group: grouped by a one-row Series, pandas 3 takes the key for a list of one key and
    # get_group refuses a plain name (KeyError on a study with one rating)
    people = {item: part.to_numpy(float)
              for item, part in as_numbers(ratings["canonical"]).groupby(ratings["item_id"], sort=False)}
    combined, values = [], []
    for item, probabilities in zip(rows["item_id"], rows["probabilities"]):
        if not probabilities or item not in people:
            continue
        p = [probabilities[f] for f in PROBABILITIES[:3]]
        q = [probabilities[f] for f in PROBABILITIES[3:]]
        combined.append(combine_orders(p, q).r)
        values.append(people[item])
    if not combined:
        return Confidence.of(n_pairs=0, n_ties=0, ece=None, ece_ci=None, brier=None, brier_ci=None, bins=(),
                             reason="no pair has the judge's probabilities in both orders (import p_a … q_c, or "
                             "`fairval lmra run` with log-probabilities) and a rating by people")
    found = confidence_numbers(np.array(combined), values, n_boot=n_boot, seed=seed)
    return Confidence.of_result(found, bins=tuple(ConfidenceBin.of_result(b) for b in found.bins))


def length_block(items: pd.DataFrame, judge: pd.Series, human: pd.Series, *, n_boot: int, seed: int) -> Length:
    """items: the study's real pairs (item_id, data with response_a, response_b); judge, human: per pair."""
    lengths = {r.item_id: len(str(r.data.get("response_a", ""))) - len(str(r.data.get("response_b", "")))
               for r in items.itertuples()}
    both = [i for i in human.index if i in judge.index and i in lengths]
    return Length.of_result(length_numbers(judge.loc[both].to_numpy(float), human.loc[both].to_numpy(float),
                                           np.array([lengths[i] for i in both], float), n_boot=n_boot, seed=seed))
