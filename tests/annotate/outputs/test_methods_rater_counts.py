"""The methods paragraph counts flagged raters as a sentence would: "No rater carried quality flags.", "1 rater
… was kept", "2 raters … were kept", and so with --exclude-flagged (it wrote "1 raters … were kept" and "0 raters
carried quality flags and were kept"; seen in the new user's walk, QA of stop 65). A rater is flagged here by the
study's minimum time: the median of its seconds per item under --min-seconds 5."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from tests.conftest import write_jsonl

TEMPLATES = [{"id": f"t{i}", "filled_template": f"Should the club admit applicant {i}?"} for i in range(3)]


def run(db_path, *args):
    result = CliRunner().invoke(cli, ["--db", str(db_path), *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize(("fast", "kept", "excluded"), [
    (0, "No rater carried quality flags.", "No rater was excluded for quality flags"),
    (1, "1 rater carried quality flags and was kept.", "1 rater was excluded for quality flags"),
    (2, "2 raters carried quality flags and were kept.", "2 raters were excluded for quality flags"),
])
def test_flagged_raters_are_counted_in_words_that_agree(db_path, tmp_path, fast, kept, excluded):
    run(db_path, "study", "create", "tq", "--task", "template_quality", "--min-seconds", "5")
    run(db_path, "items", "import", "tq", write_jsonl(tmp_path / "t.jsonl", TEMPLATES))
    raters = [f"r{k}" for k in range(3)]
    run(db_path, "ratings", "import", "tq", write_jsonl(tmp_path / "r.jsonl", [
        {"item_id": t["id"], "rater_id": r, "question": q, "value": 1 + (i + k) % 5,
         "seconds": 1 if k < fast else 20}
        for i, t in enumerate(TEMPLATES) for k, r in enumerate(raters) for q in ("quality", "yes_positive")]))
    for flag, expected in (((), kept), (("--exclude-flagged",), excluded)):
        out = tmp_path / f"methods{len(flag)}.md"
        run(db_path, "report", "tq", "--methods", *flag, "--out", out)
        paragraph = out.read_text(encoding="utf-8").split("\n\nReferences")[0]
        assert expected in paragraph, paragraph
