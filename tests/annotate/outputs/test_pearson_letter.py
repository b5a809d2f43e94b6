"""Issue 53: Pearson's correlation is written r in every output (the methods paragraph, the report's tables,
the dataset card, the planner's page, `compare`); ρ is Spearman's letter and stays only where a number is
Spearman's. Each labelled number is the one `analyze --json` gives as `pearson_r`."""
from __future__ import annotations

import json

import pandas as pd
from click.testing import CliRunner

from fairval.annotate.cli.main import cli


def run(db_path, *args):
    result = CliRunner().invoke(cli, ["--db", str(db_path), *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_every_output_names_pearsons_correlation_r(db, db_path, tmp_path):
    from fairval.annotate.outputs.report import report_sections
    from fairval.ui.plan_view import COLUMNS

    run(db_path, "demo", "--no-serve")
    r = json.loads(run(db_path, "analyze", "demo-pairs", "--json"))["lmra"]["pearson_r"]

    run(db_path, "report", "demo-pairs", "--methods", "--out", str(tmp_path / "methods.md"))
    paragraph = (tmp_path / "methods.md").read_text(encoding="utf-8").split("\n\nReferences")[0]
    assert f"Pearson's r = {r:.2f}" in paragraph and "ρ" not in paragraph

    tables = [body for _, body in report_sections(db, "demo-pairs") if isinstance(body, pd.DataFrame)]
    columns = [str(c) for t in tables for c in t.columns]
    assert "r (Pearson)" in columns and not any("ρ" in c for c in columns), columns
    validity = next(t for t in tables if "r (Pearson)" in t.columns).iloc[0]
    assert validity["r (Pearson)"].startswith(f"{r:.3f}")
    assert validity["r (Pearson)"].split()[0] != validity["Spearman"].split()[0]    # two numbers, two letters

    run(db_path, "export", "demo-pairs", "--format", "hf", "--out", str(tmp_path / "hf"))
    card = (tmp_path / "hf" / "README.md").read_text(encoding="utf-8")
    assert f"Pearson's r with mean human scores {r:.3f}" in card and "ρ" not in card

    assert "r (judge vs people)" in COLUMNS and not any("ρ" in label for label in COLUMNS)
