"""Lint and types, as `make check` runs them before pytest, so that pytest alone shows them too: ruff with
[tool.ruff] and mypy with [tool.mypy] of pyproject.toml, each run plainly at the top as an editor runs it."""
import re
import subprocess
import sys
import tomllib

from tests.conftest import ROOT


def test_ruff_passes():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "lint.py"), "ruff"], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, f"`python tools/lint.py ruff` failed:\n{done.stdout}{done.stderr}"


def package_modules() -> set[str]:
    """Every module of what installs, by name: each .py file of the top but those of tests/, bench/, build/,
    tools/ (and of folders starting with a dot: .venv/, .typing/)."""
    outside = {"tests", "bench", "build", "tools", "docs", "deploy", "test-artifacts"}
    files = [entry for entry in ROOT.iterdir() if entry.suffix == ".py"]
    for folder in ROOT.iterdir():
        if folder.is_dir() and not folder.is_symlink() and folder.name not in outside and not folder.name.startswith("."):
            files += folder.rglob("*.py")
    return {".".join(("fairval", *file.relative_to(ROOT).with_suffix("").parts)).removesuffix(".__init__")
            for file in files}


def test_mypy_run_plainly_at_the_top_checks_every_module_of_the_package_and_passes():
    """`mypy` with no arguments (what tools/lint.py runs and an editor's mypy runs), its modules read from
    its verbose log's sources: every module of the package, none of the checkout's other folders. Verbose,
    not a report: a report makes mypy check every module again, while this run reads the cache that
    `make check`'s lint step has just written (0.4 s of CPU against 16)."""
    done = subprocess.run([sys.executable, "-m", "mypy", "--verbose"], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)
    assert done.returncode == 0, f"mypy failed:\n{done.stdout}{done.stderr[-3000:]}"
    checked = set(re.findall(r"^LOG: +Found source: +BuildSource\(path='[^']*', module='([^']+)'", done.stderr, re.M))
    expected = package_modules()
    assert len(expected) > 150 and "fairval.annotate.cli.main" in expected and "fairval.pages.1_Results" in expected
    assert expected - checked == set()
    assert [m for m in checked if m.startswith(("fairval.tests", "fairval.bench", "fairval.build"))] == []


def test_tools_find_the_package_under_its_name_through_one_link_to_the_top():
    """The top is the package `fairval` whatever the checkout's folder is called; mypy and pyright (and
    the editors built on them) read where to find it from pyproject.toml: `.typing/fairval`, a link kept
    in git, so no tool has to know setuptools' editable finder."""
    link = ROOT / ".typing" / "fairval"
    assert link.is_symlink() and link.resolve() == ROOT.resolve()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    assert config["mypy"]["mypy_path"] == "$MYPY_CONFIG_FILE_DIR/.typing" and config["mypy"]["packages"] == ["fairval"]
    assert config["pyright"]["extraPaths"] == [".typing"]
