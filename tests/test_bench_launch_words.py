"""`python -m bench.launch table` read as a user types it: --help gives the usage and exits 0; a word it cannot
use is named in one line, with no traceback, before anything is started."""
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def launch(*words: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.launch", *words], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("words", [("table", "--help"), ("--help",), ("table", "-h"), ("table", "250", "--help")])
def test_help_gives_the_usage_and_exits_0(words):
    done = launch(*words)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m bench.launch table [participants ...]"), done.stdout
    assert "--workers" in done.stdout and "--window" in done.stdout
    assert done.stderr == ""


@pytest.mark.parametrize(("words", "named"), [
    (("table", "abc"), "'abc' is not a number of participants"),
    (("table", "100", "0"), "'0' is not a number of participants"),
    (("table", "--workers", "1,two"), "'two' is not a number of workers"),
    (("table", "--backends", "sqlite,mysql"), "'mysql' is not a backend (choose from sqlite, postgresql)"),
    (("table", "--window", "soon"), "'soon' is not a window in seconds"),
    (("table", "--window"), "--window needs a value"),
    (("table", "--participants", "5"), "'--participants' is not an option"),
    (("tabel",), "'tabel' is not a command"),
    ((), "no command"),
])
def test_a_bad_word_is_named_in_one_line(words, named):
    done = launch(*words)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0], done.stderr           # one line, no traceback
    assert "usage: python -m bench.launch table" in lines[0]
    assert done.stdout == ""
