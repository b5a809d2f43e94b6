"""docs/cli.md is the command line's own help: regenerated, it is unchanged; each section is what the
installed `fairval` prints for `--help`; and every command a group lists has its section."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fairval.annotate.cli import docs
from tests.conftest import ROOT

PAGE = ROOT / "docs" / "cli.md"


def sections(text: str) -> dict[str, str]:
    """'fairval study set' -> the help printed under that heading."""
    return {m["title"]: m["body"] for m in re.finditer(r"^## (?P<title>[^\n]+)\n\n```text\n(?P<body>.*?)\n```$",
                                                       text, re.S | re.M)}


def test_docs_cli_md_is_the_generators_output():
    assert PAGE.read_text(encoding="utf-8") == docs.page(), (
        "docs/cli.md differs from the commands' --help: run `python -m fairval.annotate.cli.docs > docs/cli.md`")


@pytest.mark.parametrize("words", [[], ["study"], ["study", "set"], ["prolific", "bonuses"], ["serve"]])
def test_a_section_is_what_the_installed_command_prints(words):
    script = Path(sys.executable).parent / "fairval"
    shown = subprocess.run([str(script), *words, "--help"], capture_output=True, text=True, check=True,
                           env={**os.environ, "COLUMNS": "120"}).stdout
    assert sections(PAGE.read_text(encoding="utf-8"))[" ".join(["fairval", *words])] == shown.rstrip()


def test_every_listed_command_has_its_section():
    page = sections(PAGE.read_text(encoding="utf-8"))
    listed = []
    for title, body in page.items():
        if "\nCommands:\n" in body:
            block = body.split("\nCommands:\n", 1)[1]
            listed += [f"{title} {line.split()[0]}" for line in block.splitlines() if line.startswith("  ")]
    assert len(listed) > 40                                     # 20 at the top, subcommands of 10 groups
    assert [name for name in listed if name not in page] == []
