"""fairval: human validation of LLM fairness evaluations, as a Python library.

    import fairval
    db = fairval.open("fairval.db")            # or a postgresql:// URL
    study = db.study("demo-pairs")
    numbers = study.analyze()                  # a frozen StudyNumbers; .to_dict() is `analyze --json`

Importing fairval loads neither pandas nor scipy: they come with the first call that needs them.
Every refusal is a FairvalError (see fairval.errors); anything else is a bug.

This folder is the package (pyproject.toml: `fairval` is the repository's top), so fairval.x.y is x/y.py:
annotate/, store/, analysis/, ui/ (views), server/ (routes), and the app's own files (app.py, serve.py, pages/, examples/,
.streamlit/config.toml), found installed or in a checkout through files().
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fairval.errors import (
    AnswerError,
    DatabaseUnreachable,
    ExportRefused,
    FairvalError,
    FrontMissing,
    GenerationError,
    ImportProblem,
    JudgeError,
    LabelMismatch,
    NoLetter,
    NoSpace,
    OutcomeUnknown,
    OutputError,
    PayOutcomeUnknown,
    ProlificError,
    QuotaRefused,
    RaterIdError,
    RaterSourceError,
    Refusal,
    ServeRefused,
    SlotTaken,
    StoreError,
    StudyClosed,
    StudyError,
    TaskError,
)

__all__ = [
    "AnswerError",
    "Database",
    "DatabaseUnreachable",
    "ExportRefused",
    "FairvalError",
    "FrontMissing",
    "GenerationError",
    "ImportProblem",
    "JudgeError",
    "LabelMismatch",
    "NoLetter",
    "NoSpace",
    "OutcomeUnknown",
    "OutputError",
    "PayOutcomeUnknown",
    "ProlificError",
    "QuotaRefused",
    "RaterIdError",
    "RaterSourceError",
    "Refusal",
    "ServeRefused",
    "SlotTaken",
    "StoreError",
    "Study",
    "StudyClosed",
    "StudyError",
    "StudyNumbers",
    "TaskError",
    "files",
    "open",
]


if TYPE_CHECKING:                                   # for the annotations only: importing fairval stays light
    from fairval.api import Database


def open(location) -> Database:
    """A fairval database: a SQLite file (created when missing) or a PostgreSQL URL."""
    from fairval.api import Database
    return Database(location)


def files() -> Path:
    """The package's folder, where app.py, serve.py, pages/ and examples/ are, installed or in a checkout."""
    return Path(__file__).resolve().parent


def __getattr__(name: str):
    # the API's classes on first use, so `import fairval` stays light
    if name in ("Database", "Study"):
        from fairval import api
        return getattr(api, name)
    if name == "StudyNumbers":
        from fairval.annotate.results.result import StudyNumbers
        return StudyNumbers
    raise AttributeError(f"module 'fairval' has no attribute {name!r}")
