"""Why a number is missing, or has no interval, as a typed value: a kind (Why) and the facts it names.
Its English is made only where it is shown: str(reason) on the pages, in the report and the CLI, and in
`analyze --json`, which prints the same sentence as before. A program tells the kinds apart by `why`.
In a sentence `{n_s}` is "s" unless the fact n is 1 (the one plural the sentences need)."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class Why(Enum):
    NOT_PAIRED = "no item was scored by both people and the judge"
    NO_DIRECTION = "people's mean is 0 on every item both scored: no direction to agree on"
    FEW_PAIRED = "only {n} item(s) scored by both; this needs at least {minimum}"
    NO_VARIATION = "every {side} score is the same; the correlation is undefined without variation"
    PERFECT = ("a perfect correlation in the sample: Fisher's z has no interval at ±1, and a zero-width one would "
               "claim a certainty a few items cannot give")
    NOTHING_SCORED = "no item scored"
    FEW_TWICE_RATED = "only {n} item(s) have two raters or more; a split-half reliability needs at least 3"
    FLAT_HALVES = "the halves' means do not vary; no correlation"
    NO_SIDE_NAMED = "no answer named a response"
    NO_BOTH_ORDERS = "no pair has the judge's probabilities for both orders"
    FEW_FOR_PPI = ("{n} pair{n_s} rated by people and scored by the judge, {unlabelled} scored by the judge alone; "
                   "prediction-powered inference needs at least 2 of the first and 1 of the second")
    FEW_DRAWN = ("{n} drawn pair(s) with human ratings among {among}; the weighted estimate needs at least 2 and a "
                 "pair left to the judge")
    FEW_RATERS_FOR_ALT_TEST = ("{n} rater{n_s} rated at least {min_items} items that others also rated; the test "
                               "needs at least {minimum}")
    ONE_RATED_PAIR = "one rated pair: no interval"
    EQUAL_ERROR_UNTESTED = "needs at least 2 group pairs with 2 rated pairs or more whose errors vary"
    NOT_SWAPPED = "no pair was asked with its group labels swapped"
    NOT_ASKED_SWAPPED = "the judge was not asked with the group labels swapped (fairval lmra run --swap-groups)"
    FEW_FOR_CONFIDENCE = "needs at least 2 pairs with the judge's probabilities and people's answers"
    FEW_FOR_LENGTH = "needs at least 3 pairs whose lengths, judge scores and people's scores vary"
    FEW_TO_CROSS_VALIDATE = "{n} pairs scored by both; {folds}-fold cross-validation needs {needed}"
    FEW_RATERS = "fewer than two raters"
    NONE_RATED_TWICE = "no item was rated by two or more raters"
    NO_RATING_VARIATION = "every rating of the rated-twice items has the same value; alpha is undefined without variation"
    NO_OBSERVATION = "no observation yet"
    RUNNING_EMPTY = "the running interval became empty (a chance of at most 5% when its conditions hold)"
    ESCALATED = ("under trust or escalate people rate only the pairs the judge is unsure of, not a random sample, "
                 "so there is no PPI estimate or interval; see `escalation`: one label per pair and the bias its "
                 "guarantee allows")
    TEXT = "{text}"             # a reason not given a kind of its own yet: its sentence as it was written


@dataclass(frozen=True)
class Reason:
    why: Why
    facts: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        facts = dict(self.facts)
        plurals = {f"{k}_s": "" if v == 1 else "s" for k, v in facts.items() if isinstance(v, int)}
        return self.why.value.format(**facts, **plurals)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def fact(self, name: str) -> Any:
        return dict(self.facts)[name]


def because(why: Why, **facts: Any) -> Reason:
    """The reason of this kind with these facts (each a number or a word the sentence names)."""
    return Reason(why, tuple(facts.items()))


def as_reason(value: Reason | str | None) -> Reason | None:
    """A reason as a typed value; a sentence not given a kind yet stays its sentence (Why.TEXT)."""
    if value is None or isinstance(value, Reason):
        return value
    return because(Why.TEXT, text=str(value))
