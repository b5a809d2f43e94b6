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


@pytest.mark.parametrize(("words", "floor"), [(("table",), True), (("table", "--floor"), True),
                                              (("table", "--no-floor"), False), (("table", "--no-floor", "--floor"), True)])
def test_the_floor_is_on_unless_turned_off(words, floor):
    from bench.launch import parse

    assert parse(list(words))["floor"] is floor


def test_help_names_the_floor():
    done = launch("table", "--help")
    assert "--floor" in done.stdout and "--no-floor" in done.stdout and "fairval / floor = Nx" in done.stdout


def test_a_table_carries_the_same_runs_floor():
    """A real run, as small as it gets (2 participants over 1 s, 1 worker, SQLite): under the table, the bare
    Streamlit floor's row for the same count and the ratio line, whose figure is the two CPU cells divided (to their rounding)."""
    done = launch("table", "2", "--workers", "1", "--backends", "sqlite", "--window", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert sum(line.startswith("fairval / floor = ") for line in lines) == 1    # once, under the table
    lines = lines[max(k for k, line in enumerate(lines) if line.startswith("| participants |")):]  # not the rows as they came
    fairval = next(line for line in lines if line.startswith("| 2 | 1 | "))
    floor = next(line for line in lines if line.startswith("| 2 | floor: bare Streamlit"))
    assert lines.index(floor) > lines.index(fairval)               # under the table it belongs to
    assert lines.index(floor) < lines.index(next(line for line in lines if line.startswith("fairval / floor")))
    assert floor.split(" | ")[2:4] == ["2", "0"]                    # both floor participants finished, none errored
    cpu = [float(line.split(" | ")[7].split(" s")[0]) for line in (fairval, floor)]
    ratio = next(line for line in lines if line.startswith("fairval / floor = "))
    assert " (2 participants, 1 worker; " in ratio, ratio
    shown = float(ratio.removeprefix("fairval / floor = ").split("x ")[0])
    assert abs(shown - cpu[0] / cpu[1]) <= 0.05 + 0.001 * cpu[0] / cpu[1] ** 2, ratio   # the cells are rounded
    assert ratio.endswith(f"{cpu[0]:.3f} s / {cpu[1]:.3f} s)")
