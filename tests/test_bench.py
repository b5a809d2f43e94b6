"""The benchmarks still run (quick sizes): they print their ratios, and the shared-file benchmark still
stores every judgment exactly once. Timings are not asserted here; they belong to bench/run.py."""
import re

from bench.run import SUITES, main


def test_every_benchmark_runs_and_reports_ratios():
    lines = main(["--quick"])
    text = "\n".join(lines)
    assert len(re.findall(r"serve\+record .* p95 .*\(\d+\.\d\dx\)", text)) == 3
    assert re.search(r"analyze .* \d+\.\d\dx the bare load \+ krippendorff", text)
    assert re.search(r"items import .*x parsing the file", text)
    assert re.search(r"judgments stored: 120 and 120, expected 120 each", text)
    assert set(SUITES) == {"serving", "analysis", "files", "processes"}
