"""One way to print each kind of number, shared by the pages, the command line and the report.

Ratios (alpha, agreement, shares, correlations, p) have three decimals, means of answers two;
an undefined number is a dash; counts agree with their noun ("1 rater", "2 raters").
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd

    from fairval.annotate.results.result import LanguageNumbers

DASH = "–"


SIGNIFICANT = 12      # digits a number keeps in JSON: no float noise (-0.40000000000000013), exact for any check


def plain_number(x):
    """x with every float written to 12 significant digits, in nested dicts and lists."""
    if isinstance(x, float):
        return float(f"{x:.{SIGNIFICANT}g}") if math.isfinite(x) else x
    if isinstance(x, dict):
        return {k: plain_number(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain_number(v) for v in x]
    return x


def json_text(x) -> str:
    """What `--json` prints: indented, numbers without float noise."""
    import json

    return json.dumps(plain_number(x), indent=2, ensure_ascii=False)


def _undefined(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def ratio(x) -> str:
    return DASH if _undefined(x) else f"{x:.3f}"


def mean(x) -> str:
    return DASH if _undefined(x) else f"{x:.2f}"


def interval(ci) -> str:
    return DASH if not ci or any(_undefined(v) for v in ci) else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def p_value(x) -> str:
    return DASH if _undefined(x) else "< 0.001" if x < 0.001 else f"{x:.3f}"


def seconds(x) -> str:
    return DASH if _undefined(x) else f"{x:.1f}"


def count(n: int | None, noun: str, plural: str | None = None) -> str:
    if n is None:                                   # a count the data leaves undefined: a dash
        return f"{DASH} {plural or noun + 's'}"
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def answers_right(share: float | None, answers: int) -> str:
    """A rater's check answers right as the quality flag says it, a share with its count: "0% (0 of 2)"."""
    if share is None or not answers:
        return DASH
    return f"{share:.0%} ({round(share * answers)} of {answers})"


# Columns of the tables the pages and the report print, by what their numbers are.
MEAN_COLUMNS = {"mean", "human", "lmra"}          # means of answers (H, a rate, is a ratio)
SECONDS_COLUMNS = {"median_seconds", "median seconds"}


def cell(column: str, value):
    """A table cell: floats formatted by their column's kind, a mapping as its "key value" pairs (a dash when
    empty: never "{}"), everything else as it is."""
    if isinstance(value, dict):
        return "; ".join(f"{k} {cell(column, v)}" for k, v in value.items()) or DASH
    if isinstance(value, (list, tuple)):
        return interval(value) if len(value) == 2 and all(isinstance(v, float) for v in value) \
            else ", ".join(map(str, value))
    if value is None or isinstance(value, float):
        if column in MEAN_COLUMNS or column.startswith("mean_"):     # mean_quality, mean_ci_low …
            return mean(value)
        if column == "p":
            return p_value(value)
        return seconds(value) if column in SECONDS_COLUMNS else ratio(value)
    return value


def table(rows: pd.DataFrame | list[dict]) -> pd.DataFrame:
    """Every cell printed the way its column's kind of number is printed everywhere."""
    import pandas as pd  # here, not at import: the CLI's --help needs formats but not pandas
    frame = pd.DataFrame(rows)
    return pd.DataFrame({c: [cell(c, v) for v in frame[c]] for c in frame.columns})


def with_mean_interval(rows) -> pd.DataFrame:
    """Per-template rows (StudyNumbers.templates) with their mean's interval printed as one "mean 95% CI"
    column beside the mean."""
    import pandas as pd
    return pd.DataFrame([{"template": r.template, "question": r.question, "n": r.n, "mean": r.mean,
                          "mean 95% CI": interval(r.mean_ci), "share_4_or_5": r.share_4_or_5} for r in rows],
                        columns=["template", "question", "n", "mean", "mean 95% CI", "share_4_or_5"])


_READABLE = {"share_4_or_5": "share 4–5", "item_id": "item", "rater_id": "rater", "n_raters": "raters",
             "n_items": "items", "n_ratings": "ratings", "lmra": "judge (LMRA)", "pearson_r": "Pearson r",
             "p_holm": "p (Holm)"}


def readable(column) -> str:
    """A column's name as a reader expects it: words, not identifiers."""
    name = str(column)
    if name in _READABLE:
        return _READABLE[name]
    if name.endswith("_ci"):
        return f"{name[:-3].replace('_', ' ')} 95% CI"
    return name.replace("_", " ")


def language_rows(by_language: Mapping[str, LanguageNumbers]) -> list[dict]:
    """The numbers' by_language as rows, one per language and question (each language by its code and its
    own name: the code first, so a right-to-left name does not turn the cell around)."""
    from fairval.annotate.material.languages import LANGUAGES
    return [{"language": f"{code} ({LANGUAGES[code][0]})" if code in LANGUAGES else code,
             "raters": part.n_raters, "question": qid, "n": q.n, "alpha": q.alpha,
             "alpha 95% CI": interval(q.alpha_ci), "agreement": q.percent_agreement, "mean": q.mean,
             "note": str(q.reason or "")}
            for code, part in by_language.items() for qid, q in part.questions.items()]
