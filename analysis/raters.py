"""Rater quality: gold accuracy, speed, straight-lining, agreement with everyone else; flags with reasons.

Straight-lining means what signals carelessness for the question's kind: a habit of the screen. On a
scale or a list, one answer given to nearly every item. On a pair question (Response 1 / Response 2 /
neither) the honest modal answer is often "neither", so only the sided answers count: nearly always the
same position on screen (always Response 1). Never the same side in the pair's true order: where a study's
harm runs one way, an honest rater who sees it names that side every time.

Answering at random is found from the answers themselves (analysis.rater_model): on each nominal
question, a Dawid–Skene model gives each rater a competence, and a rater whose agreement with the other
raters' model label does not beat chance (exact one-sided test at 5%) and falls short of what an honest
rater right 80% of the time would give (exact one-sided test at 5%: such raters are flagged in at most 5% of
cases), over at least `random_test_min_answers` items shared with others, is flagged, with their
Dawid–Skene competence in the flag.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

from fairval.analysis.rater_model import HONEST_ACCURACY, chance_test, dawid_skene


@dataclass(frozen=True, slots=True)
class QualityRules:
    min_gold_accuracy: float = 0.75
    min_median_seconds: float = 0.0          # the study's minimum response time
    max_straightline: float = 0.95           # share of one answer to one question …
    straightline_min_answers: int = 8        # … once the rater has given this many
    random_test_min_answers: int = 20        # the test against answering at random needs this many answers


@dataclass(frozen=True, slots=True)
class RaterQuality:
    rater_id: str
    n_items: int
    gold_n: int
    gold_accuracy: float | None
    median_seconds: float | None
    straightline: float | None               # largest share of a single answer (pairs: of one side), over questions
    consensus_agreement: float | None        # agreement with the leave-one-out modal answer
    flags: tuple[str, ...]
    competence: Mapping[str, float] = field(default_factory=dict)   # question -> Dawid–Skene's P(true class)


def rater_quality(ratings: pd.DataFrame, gold: Mapping[str, Mapping[str, str]],
                  rules: QualityRules = QualityRules(), *,
                  pair_questions: Mapping[str, str] | None = None,
                  nominal_questions: tuple[str, ...] = ()) -> list[RaterQuality]:
    """ratings: item_id, rater_id, question, value, canonical, seconds, gold_item. gold: item -> {q: the
    expected answer as a canonical value (pairs: in true order), compared with each rating's canonical}.
    pair_questions: question -> its neutral answer ("C"), for questions whose A/B name a response's
    position as shown (value) and in true order (canonical).

    Each measure is one grouped pass over all raters; only the flags are written rater by rater.
    """
    if ratings.empty:
        return []
    regular = ratings[~ratings["gold_item"]]
    agreement = _consensus_agreement(regular)
    raters = sorted(ratings["rater_id"].unique())
    hits, checked = _gold_hits(ratings, gold)
    first_seconds = ratings.groupby(["rater_id", "item_id"])["seconds"].first().dropna()
    median = first_seconds.groupby(level="rater_id").median()
    n_items = regular.groupby("rater_id")["item_id"].nunique()
    straight = _straight_lining(regular, pair_questions or {}, rules.straightline_min_answers)
    competence, at_random = _rater_model(regular, nominal_questions, rules.random_test_min_answers)
    out = []
    for rater in raters:
        n_hit, n_gold = int(hits.get(rater, 0)), int(checked.get(rater, 0))
        gold_acc = n_hit / n_gold if n_gold else None
        med = float(median[rater]) if rater in median.index else None
        top = straight.loc[rater] if rater in straight.index else None
        line = None if top is None else float(top["share"])
        items = int(n_items.get(rater, 0))
        flags = []
        if gold_acc is not None and gold_acc < rules.min_gold_accuracy:
            flags.append(f"gold accuracy {gold_acc:.0%} below {rules.min_gold_accuracy:.0%} "
                         f"({n_hit:,} of {n_gold:,})")
        if med is not None and rules.min_median_seconds and med < rules.min_median_seconds:
            flags.append(f"median {_below(med, rules.min_median_seconds)} s per item, under the minimum "
                         f"{rules.min_median_seconds:g} s")
        if top is not None and line is not None and top["n"] >= rules.straightline_min_answers \
                and line >= rules.max_straightline:
            flags.append(f"straight-lining: {top['what']} ({round(line * top['n']):,} of {int(top['n']):,})")
        flags.extend(at_random.get(str(rater), ()))
        out.append(RaterQuality(str(rater), items, n_gold, gold_acc, med, line, agreement.get(rater), tuple(flags),
                                competence.get(str(rater), {})))
    return out


def _below(value: float, limit: float) -> str:
    """value (under limit) with the fewest decimals that still read as under it: 0.96 under 1 is "0.96",
    never "1.0", which would contradict the flag."""
    for digits in range(1, 7):
        text = f"{value:.{digits}f}"
        if float(text) < limit:
            return text
    return f"{value:.12g}"


def _rater_model(regular: pd.DataFrame, questions: tuple[str, ...], min_answers: int
                 ) -> tuple[dict[str, dict[str, float]], dict[str, list[str]]]:
    """Per rater: Dawid–Skene competence per nominal question (on canonical answers: a pair's true order),
    and a flag for each question where their answers do not beat chance."""
    competence: dict[str, dict[str, float]] = {}
    flags: dict[str, list[str]] = {}
    for question in questions:
        answers = regular.loc[regular["question"] == question, ["item_id", "rater_id", "canonical"]]
        model = dawid_skene(answers.rename(columns={"canonical": "value"}).dropna())
        if model is None:
            continue
        for rater, value in model.competence().items():
            competence.setdefault(rater, {})[question] = value
        for t in chance_test(model, answers.rename(columns={"canonical": "value"}).dropna()):
            if t.n >= min_answers and t.p_value is not None and t.p_value > 0.05 \
                    and t.p_honest is not None and t.p_honest < 0.05:
                flags.setdefault(t.rater_id, []).append(
                    f"answers {question!r} no better than at random: agreed with the other raters' model label "
                    f"on {t.agreed:,} of {t.n:,} items, {t.expected:,.1f} expected by chance (p = {t.p_value:.2f}) and "
                    f"{t.expected_honest:,.1f} from a rater right {HONEST_ACCURACY:.0%} of the time (p = "
                    f"{t.p_honest:.3f}); Dawid–Skene competence {model.competence()[t.rater_id]:.2f}")
    return competence, flags


def _straight_lining(regular: pd.DataFrame, pair_questions: Mapping[str, str], min_answers: int) -> pd.DataFrame:
    """Per rater, the most repeated answer over questions: share, n (answers it is a share of), what.
    Questions the rater answered at least min_answers times come first: a share of two answers says little."""
    is_pair = regular["question"].isin(list(pair_questions))
    plain = _top_answer(regular[~is_pair], "value")
    plain["what"] = ["answered " + repr(str(v)) + " to " + repr(str(q)) + f" on {s:.0%} of items"
                     for q, v, s in zip(plain["question"], plain["value"], plain["share"])]
    pair = regular[is_pair]
    neutral = pair["question"].map(dict(pair_questions)).astype(str)
    sided = pair[pair["value"].astype(str) != neutral]
    shown = _top_answer(sided, "value")
    shown["what"] = [f"Response {1 if str(v) == 'A' else 2} in {s:.0%} of answers naming a response"
                     for v, s in zip(shown["value"], shown["share"])]
    every = pd.concat([plain, shown])
    if every.empty:
        return pd.DataFrame(columns=["share", "n", "what"])
    every = every.assign(enough=every["n"] >= min_answers)
    every = every.sort_values(["enough", "share", "n"], ascending=False, kind="stable")
    return every.groupby("rater_id", sort=False)[["share", "n", "what"]].first()


def _top_answer(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """Per (rater, question): the answer given most often in `column`, its share and the answers counted."""
    if frame.empty:
        return pd.DataFrame(columns=["rater_id", "question", "value", "share", "n"])
    counts = frame.groupby(["rater_id", "question", column], observed=True).size().rename("c").reset_index()
    counts["n"] = counts.groupby(["rater_id", "question"], observed=True)["c"].transform("sum")
    counts = counts.sort_values("c", ascending=False, kind="stable").drop_duplicates(["rater_id", "question"])
    return pd.DataFrame({"rater_id": counts["rater_id"].astype(str).to_numpy(),
                         "question": counts["question"].to_numpy(), "value": counts[column].to_numpy(),
                         "share": (counts["c"] / counts["n"]).to_numpy(), "n": counts["n"].astype(int).to_numpy()})


def _gold_hits(ratings: pd.DataFrame, gold: Mapping[str, Mapping[str, str]]) -> tuple[pd.Series, pd.Series]:
    """Per rater: gold answers matching the expected one, and gold answers checked."""
    expected = pd.DataFrame([(item, q, str(v)) for item, answers in gold.items() for q, v in answers.items()],
                            columns=["item_id", "question", "expected"])
    answered = ratings.loc[ratings["gold_item"], ["rater_id", "item_id", "question", "canonical"]]
    if expected.empty or answered.empty:
        return pd.Series(dtype=int), pd.Series(dtype=int)
    joined = answered.astype({"item_id": str, "question": str}).merge(expected, on=["item_id", "question"])
    hit = joined["canonical"].astype(str) == joined["expected"]
    return hit.groupby(joined["rater_id"]).sum(), hit.groupby(joined["rater_id"]).size()


def _consensus_agreement(ratings: pd.DataFrame) -> dict[str, float]:
    """Per rater: share of their answers equal to a modal answer of the other raters of that item.

    Vectorised: with c the count of the rater's own answer in its (item, question), m1 the top
    count there, n1 how many answers share it and m2 the next count, the others' top count is
    max(m1 - 1, m1 if n1 > 1 else m2) when the rater gave a top answer, else m1; the rater agrees
    when their answer's count among the others (c - 1) reaches it.
    """
    keys = ["item_id", "question"]
    frame = ratings[[*keys, "rater_id", "canonical"]]
    frame = frame.assign(n=frame.groupby(keys)["rater_id"].transform("size"))
    frame = frame[frame["n"] >= 2]
    if frame.empty:
        return {}
    counts = frame.groupby([*keys, "canonical"]).size().rename("c").reset_index()
    top = counts.groupby(keys)["c"].agg(m1="max").reset_index()
    counts = counts.merge(top, on=keys)
    n1 = counts[counts["c"] == counts["m1"]].groupby(keys).size().rename("n1")
    m2 = counts[counts["c"] < counts["m1"]].groupby(keys)["c"].max().rename("m2")
    counts = counts.merge(n1, on=keys).merge(m2, on=keys, how="left").fillna({"m2": 0})
    frame = frame.merge(counts, on=[*keys, "canonical"])
    is_top = frame["c"] == frame["m1"]
    others_top = (frame["m1"] - 1).where(~(frame["n1"] > 1), frame["m1"])
    others_top = others_top.where(others_top >= frame["m2"], frame["m2"]).where(is_top, frame["m1"])
    agrees = (frame["c"] - 1) == others_top
    return {str(k): float(v) for k, v in agrees.groupby(frame["rater_id"]).mean().items()}
