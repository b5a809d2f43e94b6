"""A checkout runs its tests whatever its folder is called: `fairval` (what `git clone` makes) or any other
name. pytest names a test module's package after the folder holding the outermost __init__.py, the
repository's top, which is the package `fairval` itself, so nothing has to be rewritten at import time."""
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

PROBE = '''
import sys

import fairval
from fairval.annotate.material.studies import create_study
from tests.conftest import ROOT


def test_the_package_is_the_checkouts_top():
    assert callable(fairval.open) and issubclass(fairval.FairvalError, Exception)
    assert (fairval.files() / "app.py").is_file() and (fairval.files() / "examples").is_dir()
    assert create_study.__module__ == "fairval.annotate.material.studies"
    assert "fairval.web" not in sys.modules
    assert (ROOT / "tests" / "test_probe_checkout.py").is_file()
'''


@pytest.mark.parametrize("name", ["fairval", "another-name"])
def test_a_checkout_under_any_folder_name_runs_its_tests(tmp_path, name):
    checkout = tmp_path / name
    shutil.copytree(ROOT, checkout, ignore=shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info", "__pycache__",
                                                                   "*.db", "bench", "docs"))
    (checkout / "tests" / "test_probe_checkout.py").write_text(PROBE, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(checkout),
                           "-c", str(checkout / "pyproject.toml"), "tests/test_probe_checkout.py",
                           "tests/analysis/test_judge_map.py"],
                          cwd=checkout, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
