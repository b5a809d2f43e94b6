"""The judge-validity block of a pair study's numbers, per judge model: every number of the calibration
table with an interval, the human ceiling, the alternative-annotator test and order effects."""
from __future__ import annotations

import pandas as pd

from analysis import judge_validity as jv
from analysis.alt_test import alt_test
from analysis.calibration import human_scores
from analysis.ppi import classical_mean, ppi_mean

ALT_TEST_EPSILON = 0.1          # Calderon et al.'s value for crowd workers
ALT_TEST_MIN_ITEMS = 30


def validity_numbers(ratings: pd.DataFrame, human: pd.Series, judge: pd.DataFrame, *, n_boot: int,
                     seed: int) -> dict:
    """ratings: the scored question's ratings (canonical as a number, value as shown, rater_* columns);
    human: per-item human mean; judge: this model's rows (item_id, score, probabilities)."""
    score = judge.set_index("item_id")["score"]
    agreement = jv.sign_agreement(human, score)
    difference = jv.rate_difference(human, score, n_boot, seed)
    per_rating = ratings.rename(columns={"canonical": "score"})[["item_id", "rater_id", "score"]]
    ceiling = jv.human_ceiling(per_rating, n_boot, seed)
    alt = alt_test(per_rating.rename(columns={"score": "answer"}), score, epsilon=ALT_TEST_EPSILON,
                   min_items=ALT_TEST_MIN_ITEMS)
    order = jv.first_position_share(ratings["value"].astype(str))
    return {
        "sign_agreement_ci": agreement["ci"],
        "spearman": jv.rank_correlation(human, score, "spearman"),
        "kendall": jv.rank_correlation(human, score, "kendall"),
        "ccc": jv.concordance(human, score),
        "human_ceiling": {"split_half": ceiling["value"], "ci": ceiling["ci"], "n_items": ceiling["n"],
                          "item_se": ceiling["item_se"], **({"reason": ceiling["reason"]} if "reason" in ceiling else {})},
        "alt_test": {k: alt[k] for k in ("winning_rate", "advantage_probability", "epsilon", "n_raters",
                                         "n_raters_left_out", "min_items", "passed")}
        | ({"reason": alt["reason"]} if "reason" in alt else {}),
        "order": {"humans_first_share": order["value"], "humans_first_ci": order["ci"], "humans_n": order["n"],
                  "humans_by_group": _first_share_by_group(ratings),
                  "judge_order_disagreement": jv.judge_order_disagreement(
                      [p for p in judge["probabilities"] if isinstance(p, dict)])},
        "rate_human_ci": jv.mean_with_interval(human, n_boot, seed)["ci"],
        "rate_lmra_ci": jv.mean_with_interval(score, n_boot, seed)["ci"],
        "rate_difference": difference,
    }


def _first_share_by_group(ratings: pd.DataFrame) -> dict:
    out = {}
    for attr in ("gender", "race"):
        column = f"rater_{attr}"
        if column in ratings:
            groups = ratings.dropna(subset=[column]).groupby(column, sort=True, observed=True)
            by = {str(g): jv.first_position_share(part["value"].astype(str)) for g, part in groups}
            if by:
                out[attr] = by
    return out


def ppi_numbers(human: pd.Series, judge: pd.Series, sample: dict | None = None) -> dict:
    """PPI++ for the per-pair mean: labelled = pairs with human ratings (and a judge score), unlabelled =
    pairs the judge alone scored; beside it the human-only and judge-only means. The estimate is valid
    only when the rated pairs are a random sample: drawn by `fairval study sample` (`sample`), or else
    not known to be random, and it says which."""
    judge = judge.dropna()
    labelled = jv.paired(human, judge)
    unlabelled = judge[~judge.index.isin(human.dropna().index)]
    return {**ppi_mean(labelled["human"].to_numpy(), labelled["judge"].to_numpy(), unlabelled.to_numpy()),
            "human_only": classical_mean(human.dropna().to_numpy()),
            "judge_only": classical_mean(judge.to_numpy()),
            "sampling": _sampling(sample, int(human.notna().sum()), len(human.dropna()) - len(labelled))}


def _sampling(sample: dict | None, rated: int, unscored: int = 0) -> str:
    if not sample:
        return ("not known to be random: valid only if the pairs people rated were drawn at random from all "
                "the judge scored (draw them with `fairval study sample`)")
    text = f"a random sample of {sample['n']:,} of {sample['of']:,} pairs (seed {sample['seed']}, `fairval study sample`)"
    if rated < sample["n"]:
        text += f"; {sample['n'] - rated} sampled pair(s) have no rating yet, so it is random only if they are missing at random"
    if unscored:
        text += (f"; {unscored} rated pair(s) have no judge score and are left out, so it is random only if "
                 "the judge's gaps are")
    return text


def group_agreement(ratings: pd.DataFrame, judge: pd.Series, sample: dict | None = None) -> dict:
    """For one rater group (004 Fig. 6): the agreement numbers with their intervals, and H by PPI++,
    from that group's per-pair mean."""
    human = human_scores(ratings)
    return {"sign_agreement_ci": jv.sign_agreement(human, judge)["ci"],
            "spearman": jv.rank_correlation(human, judge, "spearman"),
            "kendall": jv.rank_correlation(human, judge, "kendall"), "ccc": jv.concordance(human, judge),
            "ppi": ppi_numbers(human, judge, sample)}
