"""What a researcher reads at the command line: the settings named where they are set, JSON a person can read
without float noise, exports of a CSV import without its empty marks, and `make app` without root."""
from __future__ import annotations

import csv
import dataclasses
import json
import math
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import fairval
from fairval.annotate.cli.main import cli
from fairval.annotate.material.studies import RECORDED
from fairval.annotate.material.study_settings import StudySettings

ROOT = Path(__file__).resolve().parents[3]


def run(db_path, *args):
    return CliRunner().invoke(cli, ["--db", str(db_path), *args])


def test_study_set_help_names_every_setting_with_its_meaning():
    shown = CliRunner().invoke(cli, ["study", "set", "--help"]).output
    for field in dataclasses.fields(StudySettings):
        line = re.search(rf"^\s+{field.name}\s+(\S.*)$", shown, re.M)
        assert line is not None and len(line.group(1)) > 10, f"`study set --help` does not explain {field.name}"
    for name in RECORDED:            # the state fairval records is no setting: typed apart (studies.Recorded)
        assert name not in {f.name for f in dataclasses.fields(StudySettings)}
        assert re.search(rf"^\s+{name}\s", shown, re.M) is None, f"{name} is recorded by fairval, not set"


@pytest.mark.parametrize("setting", ["human_sample={}", 'human_sample={"n": 2, "of": 8, "seed": 1}', "stopped={}"])
def test_study_set_refuses_the_recorded_state_in_one_line(db_path, setting):
    run(db_path, "demo", "--no-serve")
    refused = run(db_path, "study", "set", "demo-pairs", setting)
    assert refused.exit_code != 0 and len(refused.output.strip().splitlines()) == 1
    assert "recorded" in refused.output and setting.split("=")[0] in refused.output


def test_an_unknown_setting_is_refused_with_the_valid_ones_and_the_nearest(db_path):
    run(db_path, "demo", "--no-serve")
    refused = run(db_path, "study", "set", "demo-pairs", "lang=ar")
    assert refused.exit_code != 0
    message = refused.output.strip()
    assert len(message.splitlines()) == 1
    assert "lang" in message and "did you mean language?" in message
    for name in StudySettings.settable():
        assert name in message


def _significant_digits(text: str) -> int:
    mantissa = text.lower().split("e")[0].lstrip("-").replace(".", "").lstrip("0")
    return len(mantissa.rstrip("0")) if "." in text.split("e")[0] else len(mantissa)


def _floats(x):
    if isinstance(x, float):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _floats(v)
    elif isinstance(x, list):
        for v in x:
            yield from _floats(v)


def _close(a, b, path="") -> None:
    """The printed numbers are the exact ones to 12 significant digits; all else equal."""
    if isinstance(b, float) and isinstance(a, (int, float)):
        assert (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-11, abs_tol=1e-300), path
    elif isinstance(b, dict):
        assert isinstance(a, dict) and list(a) == list(b), path
        for k in b:
            _close(a[k], b[k], f"{path}.{k}")
    elif isinstance(b, (list, tuple)):
        assert isinstance(a, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{i}]")
    else:
        assert a == b, path


def test_analyze_json_is_indented_and_free_of_float_noise(db_path):
    run(db_path, "demo", "--no-serve")
    for name in ("demo-pairs", "demo-templates", "demo-names"):
        out = run(db_path, "analyze", name, "--json", "--bootstrap", "50").output
        assert out.startswith("{\n  \"study\""), "indented, one key a line"
        # every number as printed has at most 12 significant digits
        for literal in re.findall(r"(?<![\w\"])-?\d+\.\d+(?:[eE][-+]?\d+)?", out):
            assert _significant_digits(literal) <= 12, literal
        exact = fairval.open(db_path).study(name).analyze(bootstrap=50).to_dict()
        _close(json.loads(out), json.loads(json.dumps(exact)), name)


def test_a_csv_import_exports_without_its_empty_marks(db_path, tmp_path):
    rows = [{"id": f"t{i}", "filled_template": f"Should the bakery approve applicant {i}'s loan?",
             "decision_question_id": str(i % 2), "_gold": "", "_practice": ""} for i in range(4)]
    rows[0]["_practice"] = "1"
    rows[1]["_gold"] = json.dumps({"quality": "5"})
    source = tmp_path / "templates.csv"
    with source.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert run(db_path, "study", "create", "tq", "--task", "template_quality", "--raters-per-item", "1").exit_code == 0
    assert run(db_path, "items", "import", "tq", str(source)).exit_code == 0
    ratings = tmp_path / "ratings.csv"
    with ratings.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["item_id", "rater_id", "question", "value"])
        for item in ("t2", "t3"):
            for rater in ("r1", "r2", "r3"):
                writer.writerow([item, rater, "quality", "5"])
                writer.writerow([item, rater, "yes_positive", "5"])
    assert run(db_path, "ratings", "import", "tq", str(ratings)).exit_code == 0

    items = fairval.open(db_path).study("tq").items()
    assert "_gold" not in items.columns and "_practice" not in items.columns
    assert list(items.columns).count("gold") == 1
    assert items.set_index("item_id").loc["t1", "gold"] == {"quality": "5"}

    for suffix in ("jsonl", "csv"):
        out = tmp_path / f"set.{suffix}"
        done = run(db_path, "export", "tq", "--out", str(out))
        assert done.exit_code == 0, done.output
        text = out.read_text(encoding="utf-8")
        assert "t2" in text and "t3" in text
        assert "_practice" not in text and "_gold" not in text, text


def test_make_app_installs_no_system_package():
    """The demo runs one Streamlit process: `make app` needs neither HAProxy nor root."""
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    app = re.search(r"^app:(.*)$", make, re.M).group(1).split()
    assert all(target not in app for target in ("haproxy", "chromium", "postgresql")), app
    recipe = re.search(r"^app:.*\n((?:\t.*\n)+)", make, re.M).group(1)
    assert "apt-get" not in recipe


def test_the_report_names_pearsons_rho_only_where_it_has_one(db_path, tmp_path):
    run(db_path, "demo", "--no-serve")
    notes = {}
    for name in ("demo-pairs", "demo-templates"):
        out = tmp_path / f"{name}.html"
        assert run(db_path, "report", name, "--out", str(out)).exit_code == 0
        notes[name] = re.search(r"Intervals are 95%[^<]*", out.read_text(encoding="utf-8")).group(0)
    assert "Pearson" in notes["demo-pairs"]
    assert "Pearson" not in notes["demo-templates"] and "alpha" in notes["demo-templates"]
