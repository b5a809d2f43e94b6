"""The Pythons fairval says it runs on are the ones it is tested on: pyproject's classifiers and
requires-python, the lowest one the linters target, and `make pythons` (plus `make check`'s .venv on the
lowest) running the fast tier on each of the others."""
from __future__ import annotations

import os
import re
import subprocess
import tomllib

from packaging.specifiers import SpecifierSet

from tests.conftest import ROOT


def said_in_pyproject() -> tuple[SpecifierSet, list[str], dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    versions = [c.rsplit(" :: ", 1)[1] for c in config["project"]["classifiers"]
                if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    return SpecifierSet(config["project"]["requires-python"]), versions, config["tool"]


def make_pythons() -> list[str]:
    """What `make pythons` runs on, as make itself expands it (a dry run: nothing is installed)."""
    # the Makefile's own list: not what a `make pythons PYTHONS=3.13` running these tests passes down
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES", "PYTHONS")}
    printed = subprocess.run(["make", "-n", "-s", "pythons"], cwd=ROOT, capture_output=True, text=True,
                             check=True, env=env).stdout
    return re.search(r"for v in ([\d. ]+); do", printed).group(1).split()


def test_every_python_the_classifiers_name_is_admitted_and_tested():
    requires, versions, tool = said_in_pyproject()
    assert versions == ["3.11", "3.12", "3.13"], versions
    assert all(requires.contains(f"{v}.0") for v in versions), requires
    assert not requires.contains("3.10.0"), requires                 # `match`, tomllib, datetime.UTC: 3.11's
    lowest = versions[0]
    assert tool["ruff"]["target-version"] == "py" + lowest.replace(".", "")
    assert tool["mypy"]["python_version"] == lowest
    assert [lowest, *make_pythons()] == versions
