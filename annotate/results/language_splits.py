"""A study's numbers split by the language each rating was given in (issue 57): raters of a study in several
languages pick one on the consent screen, and agreement is compared across them. A rating stored before the
language was recorded (schema v23) counts under `unrecorded`, never under a language it may not have been."""
from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from fairval.annotate.material.studies import LoadedStudy
from fairval.annotate.material.tasks import Question
from fairval.annotate.results.result import LanguageNumbers, QuestionNumbers

UNRECORDED = "unrecorded"


def rating_languages(ratings: pd.DataFrame) -> pd.Series:
    """Each rating's language, `unrecorded` where none is stored."""
    column = ratings["language"].astype(object)
    return column.where(column.notna(), UNRECORDED)


def splits(study: LoadedStudy, ratings: pd.DataFrame) -> bool:
    """Whether the numbers split by language: the study offers several, or its ratings carry several."""
    return len(study.settings.offered()) > 1 or rating_languages(ratings).nunique() > 1


def by_language(study: LoadedStudy, ratings: pd.DataFrame,
                question_numbers: Callable[[Question, pd.DataFrame], QuestionNumbers]
                ) -> dict[str, LanguageNumbers] | None:
    """Per language (the study's in the order offered, then any other the ratings carry, then `unrecorded`):
    its raters, ratings and items, and each question's numbers from its ratings alone (alpha with its
    interval, agreement, the distribution). None for a study in one language whose ratings all say so."""
    if not splits(study, ratings):
        return None
    languages = rating_languages(ratings)
    found = set(languages)
    order = [*study.settings.offered(), *sorted(found - set(study.settings.offered()) - {UNRECORDED})]
    order += [UNRECORDED] if UNRECORDED in found else []
    out = {}
    for language in order:
        part = ratings[languages == language]
        out[language] = LanguageNumbers(n_raters=int(part["rater_id"].nunique()), n_ratings=len(part),
                                        n_items=int(part["item_id"].nunique()),
                                        questions={q.id: question_numbers(q, part[part["question"] == q.id])
                                                   for q in study.task.questions})
    return out
