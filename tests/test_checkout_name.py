"""A checkout runs its tests whatever its folder is called: `fairval` (what `git clone` makes) or any other
name. tests/ is no package: pytest (importlib mode, pyproject.toml) names each test file and conftest by its
path from the top, the name the tests import it by, so each is loaded once and none as a part of `fairval`
(with a tests/__init__.py, pytest named conftest `fairval.tests.conftest` in a folder called fairval and
the tests imported it again as `tests.conftest`)."""
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

PROBE = '''
import sys
from pathlib import Path

import fairval
from fairval.annotate.material.studies import create_study
from tests.conftest import ROOT


def test_the_package_is_the_checkouts_top():
    assert callable(fairval.open) and issubclass(fairval.FairvalError, Exception)
    assert (fairval.files() / "app.py").is_file() and (fairval.files() / "examples").is_dir()
    assert create_study.__module__ == "fairval.annotate.material.studies"
    assert "fairval.web" not in sys.modules
    assert (ROOT / "tests" / "test_probe_checkout.py").is_file()


def test_each_file_of_the_tests_is_loaded_once_and_outside_fairval():
    names = {}
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and Path(file).resolve().is_relative_to(ROOT / "tests"):
            names.setdefault(Path(file).resolve().relative_to(ROOT).as_posix(), []).append(name)
    assert "tests/conftest.py" in names and "tests/analysis/test_judge_map.py" in names, names
    assert {file: n for file, n in names.items() if len(n) > 1} == {}
    assert [n for n in sys.modules if n.startswith(("fairval.tests", "fairval.bench", "fairval.build"))] == []
'''


@pytest.mark.parametrize("name", ["fairval", "another-name"])
def test_a_checkout_under_any_folder_name_runs_its_tests(tmp_path, name):
    checkout = tmp_path / name
    # .typing/fairval stays a link to the copy's top; what git ignores stays behind: the tools' caches (mypy's is
    # tens of MB, and test_lint.py may be writing it in another process of `make check`), the other Pythons'
    # venvs, the single sign-on test's node_modules
    shutil.copytree(ROOT, checkout, symlinks=True,
                    ignore=shutil.ignore_patterns(".venv", ".venv-*", ".git", "build", "*.egg-info", "__pycache__", "*.db",
                                                  "*.db-wal", "*.db-shm", "bench", "docs", ".mypy_cache", ".ruff_cache",
                                                  ".pytest_cache", ".hypothesis", "node_modules", "test-artifacts"))
    (checkout / "tests" / "test_probe_checkout.py").write_text(PROBE, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(checkout),
                           "-c", str(checkout / "pyproject.toml"), "tests/test_probe_checkout.py",
                           "tests/analysis/test_judge_map.py"],
                          cwd=checkout, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
