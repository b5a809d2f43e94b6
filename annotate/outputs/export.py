"""What a study produces: the validated set (with a sidecar of numbers) and tidy raw ratings."""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from fairval.analysis.rater_model import dawid_skene
from fairval.analysis.scores import as_numbers
from fairval.analysis.soft_labels import soft_labels
from fairval.annotate.material.cells import inert_text
from fairval.annotate.material.importers import CONTROL_FIELDS
from fairval.annotate.material.pairs import scored_question
from fairval.annotate.outputs.files import atomic_output, output_format, spreadsheet_text, write_csv, write_text
from fairval.annotate.results.numbers import TEMPLATE_KEY, StudyData, calibration_items, load_study_data, main_judge
from fairval.errors import StudyError
from fairval.store import Connection, audit


@dataclass(frozen=True)
class Thresholds:
    """The mean a template needs on each 1–5 question of its task (quality_min and yes_positive_min for the
    preset's questions, which the CLI and the Export page name; mean_min for any other) and the ratings."""
    quality_min: float = 4.0
    yes_positive_min: float = 4.0
    min_ratings: int = 3            # per template and question
    mean_min: float = 4.0
    others: dict | None = None      # question id -> its minimum, for a declared task's other 1–5 questions

    def __post_init__(self) -> None:
        if self.min_ratings < 1:
            raise StudyError(f"min_ratings must be at least 1, not {self.min_ratings}")

    def to_dict(self) -> dict:
        """For the sidecar: the preset's three, and the others only where a declared task's questions use them."""
        out = {"quality_min": self.quality_min, "yes_positive_min": self.yes_positive_min,
               "min_ratings": self.min_ratings}
        return {**out, **({"mean_min": self.mean_min} if self.mean_min != 4.0 else {}), **(
            {"others": dict(self.others)} if self.others else {})}

    def minimum(self, question: str) -> float:
        named = {"quality": self.quality_min, "yes_positive": self.yes_positive_min, **(self.others or {})}
        return named.get(question, self.mean_min)


def template_texts(data: StudyData) -> dict[str, str]:
    """Each template's text as a reader knows it: its first real fill (what the Results and Export pages show
    beside a template's id, which alone is a number)."""
    texts: dict[str, str] = {}
    for r in data.regular_items.itertuples():
        shown = r.data.get("filled_template") or next((str(v) for v in r.data.values() if isinstance(v, str)), "")
        texts.setdefault(str(r.data.get(TEMPLATE_KEY, r.item_id)), str(shown))
    return texts


def template_verdicts(data: StudyData, thresholds: Thresholds) -> pd.DataFrame:
    """Per template (in import order): n, mean and share of 4–5 for each 1–5 question of the task, and whether
    it passes them all."""
    regular = data.regular_items
    template_of = {r.item_id: str(r.data.get(TEMPLATE_KEY, r.item_id)) for r in regular.itertuples()}
    order = list(dict.fromkeys(template_of.values()))
    score = as_numbers(data.ratings["value"])
    ratings = pd.DataFrame({"template": data.ratings["item_id"].map(template_of).astype(object),
                            "question": data.ratings["question"].astype(str), "score": score,
                            "high": (score >= 4).astype(float)})
    table = pd.DataFrame({"template": order,
                          "n_items": pd.Series(list(template_of.values())).value_counts().reindex(order).to_numpy()})
    passed = pd.Series(True, index=table.index)
    for q, minimum in ((q.id, thresholds.minimum(q.id)) for q in data.study.task.likert_questions):
        per = (ratings[ratings["question"] == q].groupby("template")
               .agg(n=("score", "size"), mean=("score", "mean"), share=("high", "mean")).reindex(order))
        table[f"n_{q}"] = per["n"].fillna(0).astype(int).to_numpy()
        table[f"mean_{q}"] = per["mean"].to_numpy()
        table[f"share_4_or_5_{q}"] = per["share"].to_numpy()
        passed &= (table[f"n_{q}"] >= thresholds.min_ratings) & (table[f"mean_{q}"] >= minimum)
    table["passed"] = passed.astype(bool)
    return table


def export_validated(db: Connection, study_id: str, out: str | Path, *,
                     thresholds: Thresholds = Thresholds(), exclude_flagged: bool = False,
                     model: str | None = None) -> dict:
    """Write the study's output to `out` (.jsonl or .csv) and numbers to `<out>.numbers.json`."""
    out = Path(out)
    fmt = output_format(out, ("jsonl", "csv"))
    data = load_study_data(db, study_id, exclude_flagged=exclude_flagged)
    sidecar: dict = {"study": data.study.study_id, "task": data.study.task.name,
                     "exclude_flagged": exclude_flagged,
                     "excluded_raters": {r: list(f) for r, f in data.excluded.items()}}
    if data.study.task.rates_templates:
        verdicts = template_verdicts(data, thresholds)
        passed = set(verdicts.loc[verdicts["passed"], "template"]) if len(verdicts) else set()
        items = data.regular_items
        keep = [r for r in items.itertuples() if str(r.data.get(TEMPLATE_KEY, r.item_id)) in passed]
        _write_rows(out, fmt, keep, columns_from=list(items.itertuples()))
        sidecar.update(thresholds=thresholds.to_dict(), templates=_records(verdicts), n_rows=len(keep),
                       templates_passed=sorted(passed), n_templates=len(verdicts))
    elif (question := scored_question(data.study.task)) is not None:
        order = {r.item_id: r.position for r in data.items.itertuples()}
        judge = main_judge(data, model)
        table = calibration_items(data, judge).drop(columns=["gap"])
        table = table.sort_values("item_id", key=lambda ids: ids.map(order)).reset_index(drop=True)
        table = table.rename(columns={"human": "human_score", "lmra": "lmra_score"})
        labels = crowd_model_labels(data).get(question.id, {})
        table.insert(list(table.columns).index("n_raters") + 1, "model_label",
                     table["item_id"].astype(str).map(labels))
        _write_table(out, fmt, table)
        sidecar.update(n_rows=len(table), model=judge, models=sorted(data.lmra["model"].unique().tolist()))
    else:
        table = item_answer_summary(data)
        _write_table(out, fmt, table)
        sidecar.update(n_rows=len(table))
    write_text(out.with_name(out.name + ".numbers.json"), json.dumps(sidecar, indent=2, default=_json_default))
    audit.record(db, "export.validated", study_id, file=out.name, rows=sidecar.get("n_rows"))
    return sidecar


def crowd_model_labels(data: StudyData) -> dict[str, dict[str, str]]:
    """Per nominal question, each item's label under the crowd's own model (Dawid–Skene, on answers in the
    pair's true order), for the export beside the majority."""
    labels = {}
    for q in data.study.task.questions:
        if q.level == "nominal":
            answers = data.ratings.loc[data.ratings["question"] == q.id, ["item_id", "rater_id", "canonical"]]
            model = dawid_skene(answers.rename(columns={"canonical": "value"}).dropna())
            if model is not None:
                labels[q.id] = {str(k): v for k, v in model.labels().items()}
    return labels


def item_answer_summary(data: StudyData) -> pd.DataFrame:
    """Per item and question: the item's text (the task's fields), n, the most common (canonical) answer
    and its share, and the raters' comments."""
    fields = list(data.study.task.required_fields)
    texts = {r.item_id: r.data for r in data.items.itertuples()}
    model_labels = crowd_model_labels(data)
    rows = []
    for (item, q), part in data.ratings.groupby(["item_id", "question"], sort=False):
        counts = part["canonical"].value_counts()
        rows.append({"item_id": item, **{f: texts[item].get(f, "") for f in fields}, "question": q,
                     "n": len(part), "top_answer": counts.index[0], "top_share": float(counts.iloc[0] / len(part)),
                     "model_label": model_labels.get(q, {}).get(str(item)),
                     "comments": inert_text(" | ".join(c for c in part["comment"].dropna()))})
    return pd.DataFrame(rows, columns=["item_id", *fields, "question", "n", "top_answer", "top_share", "model_label",
                                       "comments"])


def ratings_table(db: Connection, study_id: str, *, exclude_flagged: bool = False) -> pd.DataFrame:
    """What export-ratings writes, as a DataFrame: one row per rating (practice and attention checks
    included) with rater attributes, order shown, canonical value and seconds."""
    data = load_study_data(db, study_id, exclude_flagged=exclude_flagged, details=True)
    frame = data.all_ratings if not exclude_flagged else data.all_ratings[
        ~data.all_ratings["rater_id"].isin(list(data.excluded))]
    frame = frame.assign(study_id=data.study.study_id)
    return frame[["study_id"] + [c for c in frame.columns if c != "study_id"]].reset_index(drop=True)


def soft_label_table(db: Connection, study_id: str, *, exclude_flagged: bool = False) -> pd.DataFrame:
    """Each answer's share per real item, question and rater group: every rater ("all"), then each group of
    the study's balance attribute."""
    data = load_study_data(db, study_id, exclude_flagged=exclude_flagged)
    s = data.study.settings
    column = f"rater_{s.balance_by}" if s.balance_by else None
    groups = tuple(s.balance_groups) if s.balance_by else ()
    ratings = data.ratings if column is None or column in data.ratings else data.ratings.assign(**{column: None})
    return soft_labels(ratings, options={q.id: answers_in_true_order(q) for q in data.study.task.questions},
                       group_column=column, groups=groups)


def answers_in_true_order(question) -> list[str]:
    """A question's answers as `canonical` writes them: a pair's harm as -1, 0, 1 (the stereotype reversed,
    none, as assigned), other questions' options as listed."""
    if question.canonical == "harm":
        return ["-1", "0", "1"]
    return [o.value for o in question.options]


def export_soft_labels(db: Connection, study_id: str, out: str | Path, *, exclude_flagged: bool = False) -> int:
    """soft_label_table written as CSV or Parquet; returns its rows."""
    return _export_table(db, study_id, out, "export.soft_labels", soft_label_table, exclude_flagged)


def export_ratings(db: Connection, study_id: str, out: str | Path, *, exclude_flagged: bool = False) -> int:
    """One row per rating with rater attributes, order shown, canonical value and seconds."""
    return _export_table(db, study_id, out, "export.ratings", ratings_table, exclude_flagged)


def _export_table(db: Connection, study_id: str, out: str | Path, action: str, table, exclude_flagged: bool) -> int:
    """A table of the study's ratings as CSV (formula-guarded) or Parquet (typed columns, kept as stored),
    audited; returns its rows."""
    out = Path(out)
    fmt = output_format(out, ("csv", "parquet"))
    frame = table(db, study_id, exclude_flagged=exclude_flagged)
    if fmt == "csv":
        if "comment" in frame.columns:          # a rater's free text, with nothing invisible left in it
            frame = frame.assign(comment=frame["comment"].map(inert_text))
        write_csv(frame, out)
    else:
        with atomic_output(out) as path:
            frame.to_parquet(path, index=False)
    audit.record(db, action, study_id, file=out.name, rows=len(frame), exclude_flagged=exclude_flagged)
    return len(frame)


def _published(data: dict) -> dict:
    """An item's fields without the empty marks a CSV import carries in every row (`_gold`, `_practice`
    columns left blank): the set exported holds real items only, so the marks say nothing there."""
    return {k: v for k, v in data.items() if not (k in CONTROL_FIELDS and v in ("", None, False, 0, "0"))}


def _write_rows(out: Path, fmt: str, items: list, columns_from: list) -> None:
    """Rows exactly as imported: JSONL lines byte for byte; CSV with the imported columns in order (those
    of every item, so that a set no template passed still has its header)."""
    if fmt == "jsonl":
        with atomic_output(out) as path, path.open("w", encoding="utf-8", newline="") as f:
            for r in items:
                f.write((r.source_line if r.source_line is not None
                         else json.dumps(_published(r.data), ensure_ascii=False)) + "\n")
        return
    columns = list(dict.fromkeys(k for r in columns_from for k in _published(r.data)))
    with atomic_output(out) as path, path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=[spreadsheet_text(c) for c in columns])
        writer.writeheader()
        for r in items:
            writer.writerow({spreadsheet_text(k): spreadsheet_text(v if isinstance(v, str) else json.dumps(v))
                             for k, v in _published(r.data).items()})


def _write_table(out: Path, fmt: str, table: pd.DataFrame) -> None:
    if fmt == "csv":
        write_csv(table, out)
    else:
        with atomic_output(out) as path:
            table.to_json(path, orient="records", lines=True, force_ascii=False)


def _records(frame: pd.DataFrame) -> list[dict]:
    return json.loads(frame.to_json(orient="records")) if len(frame) else []


def _json_default(value):
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
