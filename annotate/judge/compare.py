"""Table 1 of Eloundou et al. for any judges and studies: one row per judge, per study Pearson's r [CI], sign
agreement a [CI] and the alternative-annotator winning rate ω."""
from __future__ import annotations

import pandas as pd

from fairval.annotate.outputs import formats
from fairval.annotate.outputs.judge_table import with_ci
from fairval.annotate.results.blocks import Judge
from fairval.annotate.results.numbers import BOOTSTRAP_DRAWS, study_numbers
from fairval.errors import StudyError
from fairval.store import Connection


def compare_judges(db: Connection, studies: list[str], models: list[str] | None = None, *,
                   n_boot: int = BOOTSTRAP_DRAWS, exclude_flagged: bool = False) -> dict[str, dict[str, Judge]]:
    """{study: {model: calibration numbers}} for the pair studies named, judges in the order asked."""
    out = {}
    for study in studies:
        numbers = study_numbers(db, study, exclude_flagged=exclude_flagged, n_boot=n_boot)
        lmra = numbers.lmra
        if lmra is None:
            raise StudyError(f"study {study!r} is {numbers.task}: compare needs pair studies with judge scores")
        judges = lmra.by_model or {lmra.model or "": lmra}        # the main judge has its model's name
        out[study] = {m: judges[m] for m in (models or judges) if m in judges}
    if not any(out.values()):
        raise StudyError("no judge scores for " + (", ".join(models) if models else "any judge")
                         + " in " + ", ".join(studies))
    return out


def comparison_table(comparison: dict[str, dict[str, Judge]]) -> pd.DataFrame:
    """One row per judge; per study the columns `STUDY r`, `STUDY a`, `STUDY ω`; a dash where a judge has
    no scores in a study."""
    judges = list(dict.fromkeys(m for by in comparison.values() for m in by))
    rows = []
    for model in judges:
        row = {"judge": model}
        for study, by in comparison.items():
            c = by.get(model)
            row[f"{study} r"] = with_ci(c.pearson_r, c.pearson_ci) if c else formats.DASH
            row[f"{study} a"] = with_ci(c.sign_agreement, c.sign_agreement_ci) if c else formats.DASH
            row[f"{study} ω"] = formats.ratio(c and c.alt_test and c.alt_test.winning_rate)
        rows.append(row)
    return pd.DataFrame(rows)
