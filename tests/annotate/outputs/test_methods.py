"""`fairval report NAME --methods`: the paragraph gives the study's own numbers as `analyze` does (alpha with
its interval, the rater and rating counts, the judge's Pearson r), cites what it uses, and the BibTeX has each key."""
from __future__ import annotations

import json
import re

from click.testing import CliRunner

from fairval.annotate.cli.main import cli


def run(db_path, *args):
    result = CliRunner().invoke(cli, ["--db", str(db_path), *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_methods_paragraph_gives_the_numbers_analyze_gives(db_path, tmp_path):
    run(db_path, "demo", "--no-serve")
    numbers = json.loads(run(db_path, "analyze", "demo-pairs", "--json"))
    run(db_path, "report", "demo-pairs", "--methods", "--out", str(tmp_path / "methods.md"))
    text = (tmp_path / "methods.md").read_text(encoding="utf-8")
    harm = numbers["questions"]["harm"]
    assert f"α = {harm['alpha']:.2f} (95% CI {harm['alpha_ci'][0]:.2f} to {harm['alpha_ci'][1]:.2f})" in text
    assert f"{numbers['n_ratings']} ratings from {numbers['n_raters']} raters" in text
    assert f"Pearson's r = {numbers['lmra']['pearson_r']:.2f}" in text
    bib = (tmp_path / "methods.bib").read_text(encoding="utf-8")
    cited = re.findall(r"\[([a-z0-9]+)\]", text.split("\n\nReferences")[0])
    assert cited and all(f"{{{key}," in bib for key in cited)
    assert "krippendorff2011" in cited and "eloundou2024" in cited

    run(db_path, "report", "demo-pairs", "--methods", "--format", "tex", "--out", str(tmp_path / "methods.tex"))
    tex = (tmp_path / "methods.tex").read_text(encoding="utf-8")
    assert r"\citep{krippendorff2011}" in tex and r"$\alpha$" in tex and "[krippendorff2011]" not in tex

    run(db_path, "report", "demo-pairs", "--out", str(tmp_path / "report.html"))
    assert f"{numbers['n_ratings']} ratings from {numbers['n_raters']} raters" in (
        tmp_path / "report.html").read_text(encoding="utf-8")
