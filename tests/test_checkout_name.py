"""A checkout in a folder named `fairval` (what `git clone` makes) runs its tests: pytest names a test
module's package after the folder holding the outermost __init__.py, so it imports the checkout's top
folder (itself fairval.web) as `fairval`; imported so, it must become the package pyproject.toml maps."""
import shutil
import subprocess
import sys

from tests.conftest import ROOT

PROBE = '''
import fairval
import fairval.web
from fairval.annotate.material.studies import create_study


def test_the_package_is_the_one_pyproject_maps():
    assert callable(fairval.open) and issubclass(fairval.FairvalError, Exception)
    assert (fairval.web.folder() / "app.py").is_file()
    assert create_study.__module__ == "fairval.annotate.material.studies"
'''


def test_a_checkout_named_fairval_imports_the_package(tmp_path):
    checkout = tmp_path / "fairval"
    shutil.copytree(ROOT, checkout, ignore=shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info", "__pycache__",
                                                                   "*.db", "bench", "docs", "examples"))
    (checkout / "tests" / "test_probe_checkout.py").write_text(PROBE, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(checkout),
                           "-c", str(checkout / "pyproject.toml"), "tests/test_probe_checkout.py"],
                          cwd=checkout, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout
