"""Files in and out at scale, each against the floor measured beside it in this run:
`items import` of 100k items against parsing the file alone; `report` against `analyze` on the same
study (rendering on top of the numbers); `export-ratings` against loading the ratings it writes.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pa_csv

from bench.synth import make_study
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.annotate.outputs.export import export_ratings
from fairval.annotate.outputs.report import write_report
from fairval.annotate.results.numbers import load_study_data, study_numbers
from fairval.store import open_db


def seconds(fn, *args, **kwargs) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


def parse_only(path: Path) -> None:
    with path.open(encoding="utf-8") as f:
        for line in f:
            json.loads(line)


def run(folder: Path, quick: bool = False) -> list[str]:
    n_items = 5_000 if quick else 100_000
    items = folder / "items.jsonl"
    with items.open("w", encoding="utf-8") as f:
        for k in range(n_items):     # discrim-eval's layout, no id: ids are derived from the content
            f.write(json.dumps({"filled_template": f"Question {k}: should the applicant be approved?",
                                "decision_question_id": k // 135, "age": 40.0, "gender": "female",
                                "race": "Asian", "fill_type": "explicit"}) + "\n")
    db = open_db(folder / "import.db")
    create_study(db, "imp", "template_quality")
    parse = seconds(parse_only, items)
    imported = seconds(import_items, db, "imp", items)
    db.close()
    lines = [f"items import {n_items:,} items: {imported:.2f} s ({imported / parse:.1f}x parsing the file, "
             f"{parse:.2f} s)"]

    n_study, n_ratings = (1_000, 50_000) if quick else (10_000, 1_000_000)
    path = make_study(folder / "files.db", n_study, n_ratings, raters_per_item=10**6)
    db = open_db(path)
    analyze = seconds(lambda: study_numbers(db, "big").to_dict())
    report = seconds(write_report, db, "big", folder / "report.html")
    load = seconds(load_study_data, db, "big", details=True)
    written = {}
    for suffix in (".parquet", ".csv"):
        written[suffix] = seconds(export_ratings, db, "big", folder / f"ratings{suffix}")
        lines.append(f"export-ratings {n_ratings:,} ratings to {suffix}: {written[suffix]:.2f} s "
                     f"({written[suffix] / load:.1f}x loading them, {load:.2f} s)")
    # the CSV floor: pyarrow writing the same table as it is, with no spreadsheet safety
    frame = load_study_data(db, "big", details=True).all_ratings
    raw = seconds(lambda: pa_csv.write_csv(pa.Table.from_pandas(frame.astype(
        {c: "string" for c in frame.columns if frame[c].dtype == object}), preserve_index=False),
        str(folder / "raw.csv")))
    lines.append(f"export-ratings to .csv against pyarrow writing the loaded table raw: {written['.csv']:.2f} s "
                 f"vs {load:.2f} s load + {raw:.2f} s write ({written['.csv'] / (load + raw):.2f}x)")
    lines.append(f"report (.html) on {n_ratings:,} ratings: {report:.2f} s ({report / analyze:.2f}x analyze, "
                 f"{analyze:.2f} s)")
    db.close()
    return lines
