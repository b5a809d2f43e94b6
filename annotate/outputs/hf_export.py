"""A dataset folder ready for the Hugging Face Hub: the ratings and the items (Parquet), and a
README.md dataset card with YAML metadata, the validation numbers, the protocol and the exclusions.
`datasets.load_dataset(DIR)` reads it (the card's `configs` name the files)."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from fairval.annotate.outputs import formats
from fairval.annotate.outputs.export import export_ratings, export_soft_labels
from fairval.annotate.outputs.files import markdown_text as md
from fairval.annotate.outputs.files import output_failure
from fairval.annotate.results.numbers import load_study_data, study_numbers
from fairval.annotate.results.result import StudyNumbers
from fairval.errors import OutputError
from fairval.store import Connection, audit


def export_hf(db: Connection, study_id: str, out: str | Path, *, exclude_flagged: bool = False) -> Path:
    folder = Path(out)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise OutputError(f"{folder} exists and is not an empty folder; give a new or empty one")
    if not folder.parent.is_dir():
        raise OutputError(f"cannot write {folder}: the folder {folder.parent} does not exist")
    # the whole folder is made beside the destination and renamed into place only when complete
    try:
        building = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.", suffix=".part"))
    except OSError as e:
        raise output_failure(folder, e) from None
    try:
        _write_folder(db, study_id, building, exclude_flagged)
        if folder.exists():
            folder.rmdir()                  # empty (checked above)
        os.replace(building, folder)
        audit.record(db, "export.dataset", study_id, folder=folder.name)
    except OSError as e:
        shutil.rmtree(building, ignore_errors=True)
        raise output_failure(folder, e) from None
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return folder


def _write_folder(db: Connection, study_id: str, folder: Path, exclude_flagged: bool) -> None:
    data_dir = folder / "data"
    data_dir.mkdir(parents=True, exist_ok=True)
    n_ratings = export_ratings(db, study_id, data_dir / "ratings.parquet", exclude_flagged=exclude_flagged)
    export_soft_labels(db, study_id, data_dir / "soft_labels.parquet", exclude_flagged=exclude_flagged)
    data = load_study_data(db, study_id, exclude_flagged=exclude_flagged)
    # Parquet like the ratings: the Hub's loader reads every config of a folder with one builder
    pd.DataFrame({"item_id": [r.item_id for r in data.items.itertuples()],
                  "gold": [bool(r.gold) for r in data.items.itertuples()],
                  "practice": [bool(r.practice) for r in data.items.itertuples()],
                  "fields": [json.dumps(r.data, ensure_ascii=False) for r in data.items.itertuples()]}
                 ).to_parquet(data_dir / "items.parquet", index=False)
    numbers = study_numbers(db, study_id, exclude_flagged=exclude_flagged, data=data)
    (folder / "numbers.json").write_text(json.dumps(numbers.to_dict(), indent=2), encoding="utf-8")
    (folder / "README.md").write_text(_card(data, numbers, n_ratings, exclude_flagged), encoding="utf-8")
    os.chmod(folder, 0o755)                 # mkdtemp made it private; a dataset folder is meant to be shared


def _size(n: int) -> str:
    return "n<1K" if n < 1_000 else "1K<n<10K" if n < 10_000 else "10K<n<100K" if n < 100_000 else \
        "100K<n<1M" if n < 1_000_000 else "1M<n<10M"


def _card(data, numbers: StudyNumbers, n_ratings: int, exclude_flagged: bool) -> str:
    study, s = data.study, data.study.settings
    yaml = "\n".join([
        "---", "pretty_name: " + json.dumps(f"{study.study_id}: human validation ({study.task.name})"),
        "tags:", "- fairness", "- llm-evaluation", "- human-validation", "- fairval",
        "size_categories:", f"- {_size(n_ratings)}",
        "configs:", "- config_name: ratings", "  data_files: data/ratings.parquet", "  default: true",
        "- config_name: items", "  data_files: data/items.parquet",
        "- config_name: soft_labels", "  data_files: data/soft_labels.parquet", "---", ""])
    # every text that came from a file, a task definition, a rater or a judge's name is written as plain
    # text (Markdown punctuation escaped): a card must not fetch an image or draw a link it was handed
    questions = "\n".join(f"- {md(q.id)} ({q.level}): {md(q.prompt)} — "
                          + ", ".join(f"{md(o.value)} = {md(o.label)}" for o in q.options) for q in study.task.questions)
    groups = f" ({md(', '.join(s.balance_groups))})" if s.balance_groups else ""
    reliability = "\n".join(
        f"| {md(qid)} | {q.n} | {formats.ratio(q.alpha)} | {formats.interval(q.alpha_ci)} | "
        f"{formats.ratio(q.percent_agreement)} |" for qid, q in numbers.questions.items())
    excluded = "\n".join(f"- {md(r)}: {md('; '.join(f))}" for r, f in data.excluded.items()) or (
        "- none" if exclude_flagged else "- none (flagged raters were kept; see `numbers.json` for the flags)")
    judge = ""
    c = numbers.lmra
    if c is not None:
        judge = (f"\n### The LLM judge ({md(c.model)})\n\nPearson's r with mean human scores "
                 f"{formats.ratio(c.pearson_r)} {formats.interval(c.pearson_ci)}, sign agreement "
                 f"{formats.ratio(c.sign_agreement)} over {formats.count(c.n_items, 'pair')}.\n")
    return yaml + f"""
# {study.study_id}

Human ratings collected with fairval to validate LLM-generated fairness-evaluation
material ({md(study.task.title or study.task.name)}). {formats.count(numbers.n_items, 'item')},
{formats.count(numbers.n_raters, 'rater')}, {formats.count(n_ratings, 'rating row')} (one per question answered).

## Files

- `data/ratings.parquet` (config `ratings`): one row per rating: item, rater (and the attributes they gave),
  question, answer as shown, whether the pair was shown swapped, the answer in true order (`canonical`),
  seconds, comment, the language the rater read the study in (`language`; empty: not recorded).
- `data/items.parquet` (config `items`): the items as imported (`fields`, JSON), and whether each is an
  attention check (`gold`) or practice.
- `data/soft_labels.parquet` (config `soft_labels`): each answer's share per real item, question and rater
  group (`all`, and each group of the study's balance attribute), with `n_raters` and a
  `share_<question>_<answer>` column per answer of each question, in true order (empty in other questions'
  rows): the form perspectivist datasets publish.
- `numbers.json`: every number `fairval analyze --json` gives for this study.

## Protocol

Task {md(study.task.name)}. Questions:

{questions}

Raters per item {s.raters_per_item}; balance {s.balance_by or 'none'}{groups};
pair sides swapped with probability {s.flip_probability} (seed {s.seed}); attention-check rate {s.gold_rate};
slots re-served after {s.timeout_seconds:g} s; minimum seconds {s.min_seconds:g}.

## Validation numbers

| question | n | Krippendorff's alpha | 95% CI | percent agreement |
| --- | --- | --- | --- | --- |
{reliability}
{judge}
## Exclusions

{excluded}
"""
