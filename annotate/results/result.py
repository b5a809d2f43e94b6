"""The one result object of a study's numbers: built once by annotate.results.numbers, read by the command
line (`analyze --json` prints its to_dict()), the pages, the report and notebooks (fairval.Study.analyze).

Each number has one name. Every block is a frozen dataclass: questions, templates, names, raters and
excluded_raters here, harm, feature_difference and lmra (a pair study's) in annotate.results.blocks, down to
their intervals. to_dict() turns them all into `analyze --json`'s plain form, from_dict() back; a block
that does not apply to the study's task is None and left out of to_dict(). Light on purpose: no pandas here."""
from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

from fairval.analysis.interval import Interval
from fairval.analysis.reasons import Reason, as_reason
from fairval.annotate.results.blocks import Judge, Rate


@dataclass(frozen=True)
class CrowdModel:
    """A nominal question's answers under the crowd's own model (Dawid–Skene): its classes and prior, and
    how often its label agrees with the attention checks' expected answer."""
    n_items: int
    classes: tuple[str, ...]
    prior: tuple[float, ...]
    gold_n: int
    gold_agreement: float | None

    def to_dict(self) -> dict:
        return {**asdict(self), "classes": list(self.classes), "prior": list(self.prior)}


@dataclass(frozen=True)
class QuestionNumbers:
    """One question's numbers. `scale` says which of the optional ones it has (and is not printed):
    harm (alpha_nominal, mean_canonical), likert (mean, share_4_or_5), numeric (mean) or nominal."""
    scale: Literal["harm", "likert", "numeric", "nominal"]
    n: int
    level: str
    alpha: float | None
    alpha_ci: Interval | None
    percent_agreement: float | None
    n_items_pairable: int
    distribution: dict[str, int]
    reason: Reason | None = None                # why alpha is undefined
    mean: float | None = None
    share_4_or_5: float | None = None
    alpha_nominal: float | None = None
    mean_canonical: float | None = None
    crowd_model: CrowdModel | None = None

    def to_dict(self) -> dict:
        # the keys in the order `analyze --json` has always printed them
        after = {"harm": ("alpha_nominal", "mean_canonical", "distribution"), "likert": ("mean", "distribution",
                 "share_4_or_5"), "numeric": ("mean", "distribution"), "nominal": ("distribution",)}[self.scale]
        out = {"n": self.n, "level": self.level, "alpha": self.alpha,
               "alpha_ci": None if self.alpha_ci is None else self.alpha_ci.to_list(),
               "percent_agreement": self.percent_agreement, "n_items_pairable": self.n_items_pairable,
               **({"reason": str(self.reason)} if self.reason else {}),
               **{k: dict(self.distribution) if k == "distribution" else getattr(self, k) for k in after}}
        if self.crowd_model is not None:
            out["crowd_model"] = self.crowd_model.to_dict()
        return out

    @classmethod
    def from_dict(cls, d: dict) -> QuestionNumbers:
        scale = ("harm" if "alpha_nominal" in d else "likert" if "share_4_or_5" in d else
                 "numeric" if "mean" in d else "nominal")
        crowd = d.get("crowd_model")
        return cls(**{**d, "scale": scale, "alpha_ci": Interval.of(d.get("alpha_ci")), "reason": as_reason(d.get("reason")),
                      "crowd_model": None if crowd is None else CrowdModel(
                          crowd["n_items"], tuple(crowd["classes"]), tuple(crowd["prior"]), crowd["gold_n"],
                          crowd["gold_agreement"])})


@dataclass(frozen=True)
class TemplateRow:
    """One template on one 1–5 question: its ratings, mean with a betting interval, share of 4 or 5.
    to_dict: the interval's ends as `mean_ci_low` and `mean_ci_high`, as `analyze --json` has them."""
    template: str
    question: str
    n: int
    mean: float | None
    share_4_or_5: float | None
    mean_ci: Interval | None

    def to_dict(self) -> dict:
        low, high = self.mean_ci or (None, None)
        return {"template": self.template, "question": self.question, "n": self.n, "mean": self.mean,
                "share_4_or_5": self.share_4_or_5, "mean_ci_low": low, "mean_ci_high": high}

    @classmethod
    def from_dict(cls, d: dict) -> TemplateRow:
        ends = (d["mean_ci_low"], d["mean_ci_high"])
        return cls(d["template"], d["question"], d["n"], d["mean"], d["share_4_or_5"],
                   None if None in ends else Interval.of(ends))


@dataclass(frozen=True)
class Perceived:
    """One question of a name task against each name's intended group (e.g. race): per group the share
    perceived as intended, its n and interval, and the confusion matrix (intended -> perceived -> count)."""
    accuracy: dict[str, float | None]
    n: dict[str, int]
    accuracy_ci: dict[str, Interval | None]
    confusion: dict[str, dict[str, int]]
    unscored: dict[str, str] = field(default_factory=dict)   # group -> why it has no accuracy


@dataclass(frozen=True)
class Names:
    """A name task's numbers, per perceived question (Task.perceived_questions), in the task's order.
    to_dict: the flat keys of `analyze --json` (race_accuracy, race_n, race_accuracy_ci, race_confusion, …)."""
    by_question: dict[str, Perceived]

    def to_dict(self) -> dict:
        out: dict = {}
        for qid, p in self.by_question.items():
            out.update({f"{qid}_accuracy": dict(p.accuracy), f"{qid}_n": dict(p.n),
                        f"{qid}_accuracy_ci": {g: None if ci is None else ci.to_list() for g, ci in p.accuracy_ci.items()},
                        f"{qid}_confusion": copy.deepcopy(p.confusion)})
            if p.unscored:
                out[f"{qid}_unscored"] = dict(p.unscored)
        return out

    @classmethod
    def from_dict(cls, d: dict) -> Names:
        qids = [k[:-len("_accuracy")] for k in d if k.endswith("_accuracy")]
        return cls({q: Perceived(d[f"{q}_accuracy"], d[f"{q}_n"],
                                 {g: Interval.of(ci) for g, ci in d[f"{q}_accuracy_ci"].items()}, d[f"{q}_confusion"],
                                 dict(d.get(f"{q}_unscored") or {}))
                    for q in qids})


@dataclass(frozen=True)
class ExcludedRater:
    """A rater left out of the numbers (exclude_flagged) and the quality flags that left them out."""
    rater_id: str
    flags: tuple[str, ...]


@dataclass(frozen=True)
class Rater:
    """One rater's quality numbers and flags (analysis.raters.RaterQuality, as the numbers carry it)."""
    rater_id: str
    n_items: int
    gold_n: int
    gold_accuracy: float | None
    median_seconds: float | None
    straightline: float | None              # largest share of a single answer
    consensus_agreement: float | None       # agreement with the leave-one-out modal answer
    flags: tuple[str, ...]
    competence: dict[str, float]            # question -> Dawid–Skene's P(true class)

    def to_dict(self) -> dict:
        return {**asdict(self), "flags": list(self.flags), "competence": dict(self.competence)}


@dataclass(frozen=True)
class LanguageNumbers:
    """The ratings given in one language (annotate.results.language_splits): its raters, ratings and items, and
    each question's numbers from them alone."""
    n_raters: int
    n_ratings: int
    n_items: int
    questions: dict[str, QuestionNumbers]

    def to_dict(self) -> dict:
        return {"n_raters": self.n_raters, "n_ratings": self.n_ratings, "n_items": self.n_items,
                "questions": {qid: q.to_dict() for qid, q in self.questions.items()}}

    @classmethod
    def from_dict(cls, d: dict) -> LanguageNumbers:
        return cls(d["n_raters"], d["n_ratings"], d["n_items"],
                   {qid: QuestionNumbers.from_dict(q) for qid, q in d["questions"].items()})


@dataclass(frozen=True)
class StudyNumbers:
    study: str                                   # the study's name
    task: str                                    # its task (template_quality, harm_pairs, …)
    n_items: int                                 # items the numbers are about (no practice, gold or judge-only)
    n_raters: int                                # raters kept (all, or the unflagged with exclude_flagged)
    n_ratings: int
    excluded_raters: tuple[ExcludedRater, ...] = ()          # the raters left out, each with its flags
    raters: tuple[Rater, ...] = ()                           # each rater's quality numbers and flags
    questions: dict[str, QuestionNumbers] = field(default_factory=dict)   # question id -> its numbers
    templates: tuple[TemplateRow, ...] | None = None   # a task rating templates 1–5 (Task.rates_templates)
    harm: Rate | None = None                     # harm pairs: H by humans and the main judge, the difference, PPI
    feature_difference: Rate | None = None       # feature pairs: the same for the A-minus-B difference
    lmra: Judge | None = None                    # pair studies with judge scores: the main judge against people
    names: Names | None = None                   # a name task (Task.perceived_questions): accuracy per intended group
    by_language: dict[str, LanguageNumbers] | None = None   # a study in several languages: the numbers per language

    @property
    def rate(self) -> Rate | None:
        """A pair study's per-pair mean block: `harm` or `feature_difference`."""
        return self.harm if self.harm is not None else self.feature_difference

    def to_dict(self) -> dict:
        """Exactly what `fairval analyze NAME --json` prints (a copy: changing it changes nothing here)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name in _OPTIONAL:
                continue
            out[f.name] = _TO_DICT.get(f.name, copy.deepcopy)(value)
        return out

    @classmethod
    def from_dict(cls, numbers: dict) -> StudyNumbers:
        """The typed numbers from `analyze --json`'s plain form (what to_dict gives back)."""
        known = {f.name for f in fields(cls)}
        unknown = set(numbers) - known
        if unknown:
            raise ValueError(f"StudyNumbers has no field(s) {sorted(unknown)}")
        typed = {name: read(numbers[name]) for name, read in _FROM_DICT.items()
                 if numbers.get(name) is not None}
        return cls(**{**numbers, **typed})


# the typed blocks at the JSON edge: each block's plain form, and back
_TO_DICT: dict[str, Callable[[Any], Any]] = {
    "excluded_raters": lambda block: {r.rater_id: list(r.flags) for r in block},
    "templates": lambda block: [row.to_dict() for row in block],
    "raters": lambda block: [rater.to_dict() for rater in block],
    "questions": lambda block: {qid: q.to_dict() for qid, q in block.items()},
    "names": lambda block: block.to_dict(),
    "harm": lambda block: block.to_dict(),
    "feature_difference": lambda block: block.to_dict(),
    "lmra": lambda block: block.to_dict(),
    "by_language": lambda block: {language: part.to_dict() for language, part in block.items()},
}
_FROM_DICT: dict[str, Callable[[Any], Any]] = {
    "excluded_raters": lambda d: tuple(ExcludedRater(r, tuple(f)) for r, f in d.items()),
    "templates": lambda rows: tuple(TemplateRow.from_dict(row) for row in rows),
    "raters": lambda rows: tuple(Rater(**{**row, "flags": tuple(row["flags"])}) for row in rows),
    "questions": lambda block: {qid: QuestionNumbers.from_dict(q) for qid, q in block.items()},
    "names": Names.from_dict,
    "harm": Rate.from_dict,
    "feature_difference": Rate.from_dict,
    "lmra": Judge.from_dict,
    "by_language": lambda block: {language: LanguageNumbers.from_dict(part) for language, part in block.items()},
}


_OPTIONAL = ("templates", "harm", "feature_difference", "lmra", "names", "by_language")
