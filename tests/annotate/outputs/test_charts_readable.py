"""The report's figures as the HTML report draws them (vl_convert's SVG), and the cells and settings the
researcher reads (issue 54): the judge's reliability diagram keeps its counts at a label's size however many
pairs a bin holds, and its whole drawing inside a phone's width; no empty "{}" or "()" is shown; a rater's
too-fast median never reads as the minimum it is under."""
from __future__ import annotations

import re

import pytest
import vl_convert

from fairval.analysis.raters import QualityRules, rater_quality
from fairval.annotate.outputs import charts, formats
from fairval.annotate.outputs.report import setting_text
from fairval.annotate.results.blocks import Confidence, ConfidenceBin


def _svg(chart) -> str:
    return vl_convert.vegalite_to_svg(chart.to_json())


def _texts(svg: str) -> list[tuple[str, float]]:
    """(text, font size in px) of each text the SVG draws."""
    return [(re.sub(r"<[^>]+>", "", body), float(size))
            for size, body in re.findall(r'<text[^>]*font-size="([\d.]+)(?:px)?"[^>]*>(.*?)</text>', svg, re.S)]


@pytest.mark.parametrize("counts", [(1, 2, 3), (5, 40, 400), (2000, 1, 60)])
def test_the_reliability_diagram_writes_each_count_small_and_fits_a_phone(counts):
    bins = tuple(ConfidenceBin(low=lo / 10, high=lo / 10 + 0.1, n=n, confidence=lo / 10 + 0.05, agreement=0.5 + lo / 40)
                 for lo, n in zip((4, 6, 9), counts))
    svg = _svg(charts.reliability_diagram(Confidence(n_pairs=sum(counts), bins=bins)))
    texts = _texts(svg)
    assert texts, svg[:500]
    assert max(size for _, size in texts) <= 14, texts             # axis titles are 11 px; nothing near a bin's n
    drawn = [t for t, _ in texts]
    for n in counts:
        assert str(n) in drawn, (n, drawn)                          # every bin's count is written
    width = float(re.search(r'<svg[^>]*width="([\d.]+)"', svg).group(1))
    assert width <= 343, width                                      # a 375 px phone's column, whole


def test_a_bin_without_pairs_is_not_drawn_and_no_bins_no_diagram():
    assert charts.reliability_diagram(None) is None
    assert charts.reliability_diagram(Confidence(bins=(ConfidenceBin(low=0.0, high=0.1, n=0),))) is None


def test_an_empty_mapping_or_list_reads_as_a_word_not_braces():
    assert formats.cell("competence", {}) == formats.DASH
    assert formats.cell("competence", {"harm": 0.81234}) == "harm 0.812"
    assert setting_text(()) == "none" and setting_text([]) == "none" and setting_text({}) == "none"
    assert setting_text(("gender", "country")) == "gender, country"


@pytest.mark.parametrize("seconds, minimum", [((0.96, 0.97, 0.95), 1.0), ((0.999, 0.999, 0.999), 1.0),
                                              ((2.46, 2.47, 2.48), 2.5), ((0.4, 0.4, 0.4), 1.0)])
def test_a_fast_raters_median_is_written_under_the_minimum(seconds, minimum):
    import pandas as pd

    ratings = pd.DataFrame([{"rater_id": "fast", "item_id": f"i{i}", "question": "q", "value": str(i % 2),
                             "canonical": str(i % 2), "seconds": s, "gold_item": False}
                            for i, s in enumerate(seconds)])
    quality = rater_quality(ratings, {}, QualityRules(min_median_seconds=minimum))
    flag = next(f for f in quality[0].flags if "per item" in f)
    shown = float(re.search(r"median ([\d.]+) s", flag).group(1))
    assert shown < minimum, flag                                    # the flag's own numbers agree with it
    assert abs(shown - sorted(seconds)[1]) < 0.05, flag             # and the median is the rater's, to 0.05 s


@pytest.mark.parametrize("ask, said", [((), "demographics: gender (gender asked for balance_by)"),
                                       (("country",), "demographics: country, gender (gender asked for balance_by)"),
                                       (("gender",), "demographics: gender\n")])
def test_study_show_and_the_report_say_which_demographics_raters_are_asked(db_path, tmp_path, ask, said):
    """A study balanced by gender asks every rater their gender, whatever its demographics list says."""
    from click.testing import CliRunner

    from fairval.annotate.cli.main import cli

    def run(*args):
        result = CliRunner().invoke(cli, ["--db", str(db_path), *args])
        assert result.exit_code == 0, result.output
        return result.output

    run("study", "create", "s", "--task", "harmful_stereotype", "--balance-by", "gender",
        "--balance-groups", "female,male", *[a for attr in ask for a in ("--ask", attr)])
    shown = run("study", "show", "s")
    assert said in shown and "()" not in shown and "{}" not in shown, shown
    run("report", "s", "--out", str(tmp_path / "r.html"))
    report = (tmp_path / "r.html").read_text(encoding="utf-8")
    cell = said.strip().split(": ", 1)[1]
    assert f"<td>demographics</td>\n      <td>{cell}</td>" in report and "<td>()</td>" not in report, report
