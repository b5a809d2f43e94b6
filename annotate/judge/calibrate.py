"""A judge mapped onto the human scale: fit on a study with human ratings, apply to any study's judge
scores (the millions rated by the judge alone). The map is a small JSON table."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from fairval.analysis.calibration import human_scores
from fairval.analysis.judge_map import apply_isotonic, apply_linear, cross_validate, fit_isotonic, fit_linear
from fairval.annotate.material.pairs import scored_question
from fairval.annotate.results.numbers import judge_scores, load_study_data, scored_ratings
from fairval.errors import StudyError
from fairval.store import Connection

FORMAT = "fairval-calibration-map/1"


def calibration_map(db: Connection, study_id: str, *, model: str | None = None, folds: int = 5,
                    seed: int = 0, exclude_flagged: bool = False) -> dict:
    data = load_study_data(db, study_id, exclude_flagged=exclude_flagged)
    if scored_question(data.study.task) is None:
        raise StudyError(f"study {study_id!r} is {data.study.task.name}: a calibration map needs a pair study")
    model, judge = judge_scores(data, model)
    both = pd.concat([judge.rename("judge"), human_scores(scored_ratings(data)).rename("human")],
                     axis=1, join="inner").dropna()
    if len(both) < 3:
        raise StudyError(f"only {len(both)} pair(s) of {study_id!r} have both human ratings and {model!r} scores; "
                         "a calibration map needs at least 3")
    x, y = both["judge"].to_numpy(), both["human"].to_numpy()
    return {"format": FORMAT, "study": study_id, "model": model, "n_pairs": len(both),
            "isotonic": fit_isotonic(x, y), "linear": fit_linear(x, y),
            "cross_validation": cross_validate(x, y, folds=folds, seed=seed).to_dict()}


def read_map(path: str | Path) -> dict:
    try:
        table = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise StudyError(f"{path} is not a calibration map: {e}") from None
    if not isinstance(table, dict) or table.get("format") != FORMAT:
        raise StudyError(f"{path} is not a calibration map written by `fairval calibrate` (format {FORMAT})")
    return table


def apply_map(db: Connection, study_id: str, table: dict, *, model: str | None = None,
              kind: str = "isotonic") -> pd.DataFrame:
    """item_id, model ("<judge> calibrated"), score on the human scale, raw_score: ready for `lmra import`."""
    data = load_study_data(db, study_id)
    model, judge = judge_scores(data, model or table["model"])
    raw = judge.to_numpy(float)
    mapped = apply_isotonic(table["isotonic"], raw) if kind == "isotonic" else apply_linear(table["linear"], raw)
    return pd.DataFrame({"item_id": judge.index, "model": f"{model} calibrated",
                         "score": np.clip(mapped, -1, 1), "raw_score": raw})
