"""The one result object of a study's numbers: built once by annotate.results.numbers, read by the command
line (`analyze --json` prints its to_dict()), the pages, the report and notebooks (fairval.Study.analyze).

Each number has one name. The blocks below are plain JSON-ready data (their keys are listed in the
README under "The numbers"); a block that does not apply to the study's task is None and left out of
to_dict(). Light on purpose: no pandas here."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields


@dataclass(frozen=True)
class StudyNumbers:
    study: str                                   # the study's name
    task: str                                    # its task (template_quality, harm_pairs, …)
    n_items: int                                 # items the numbers are about (no practice, gold or judge-only)
    n_raters: int                                # raters kept (all, or the unflagged with exclude_flagged)
    n_ratings: int
    excluded_raters: dict = field(default_factory=dict)     # rater -> the quality flags that excluded them
    raters: list = field(default_factory=list)              # each rater's quality numbers and flags
    questions: dict = field(default_factory=dict)           # question id -> n, alpha, its interval, mean …
    templates: list | None = None                # template_quality: per template (decision_question_id)
    harm: dict | None = None                     # harm pairs: H by humans and the main judge, the difference, PPI
    feature_difference: dict | None = None       # feature pairs: the same for the A-minus-B difference
    lmra: dict | None = None                     # pair studies with judge scores: the main judge against people
    names: dict | None = None                    # name_perception: accuracy per intended group, confusion

    @property
    def rate(self) -> dict | None:
        """A pair study's per-pair mean block: `harm` or `feature_difference`."""
        return self.harm if self.harm is not None else self.feature_difference

    def to_dict(self) -> dict:
        """Exactly what `fairval analyze NAME --json` prints (a copy: changing it changes nothing here)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name in _OPTIONAL:
                continue
            out[f.name] = copy.deepcopy(value)
        return out

    @classmethod
    def from_dict(cls, numbers: dict) -> StudyNumbers:
        known = {f.name for f in fields(cls)}
        unknown = set(numbers) - known
        if unknown:
            raise ValueError(f"StudyNumbers has no field(s) {sorted(unknown)}")
        return cls(**numbers)


_OPTIONAL = ("templates", "harm", "feature_difference", "lmra", "names")
