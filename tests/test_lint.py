"""Lint and types, as `make test` runs them before pytest, so that pytest alone shows them too: ruff with
[tool.ruff] and mypy with [tool.mypy] of pyproject.toml (tools/lint.py)."""
import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import ROOT

spec = importlib.util.spec_from_file_location("lint", ROOT / "tools" / "lint.py")
lint = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lint)


@pytest.mark.parametrize("check", ["ruff", "mypy"])
def test_the_code_passes(check):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "lint.py"), check], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, f"`python tools/lint.py {check}` failed:\n{done.stdout}{done.stderr}"


def test_the_layout_follows_package_dir_when_folders_are_mapped(tmp_path):
    top = tmp_path / "checkout"
    for folder in ("fairval", "analysis", "store"):
        (top / folder).mkdir(parents=True)
        (top / folder / "__init__.py").write_text("")
    (top / "fairval" / "errors.py").write_text("")
    (top / "analysis" / "ppi.py").write_text("")
    (top / "pyproject.toml").write_text('[tool.setuptools.package-dir]\n"fairval" = "fairval"\n'
                                        '"fairval.analysis" = "analysis"\n"fairval.store" = "store"\n"fairval.web" = "."\n')
    package = lint.package_layout(top, tmp_path / "layout") / "fairval"
    assert (package / "analysis" / "ppi.py").resolve() == (top / "analysis" / "ppi.py").resolve()
    assert (package / "errors.py").resolve() == (top / "fairval" / "errors.py").resolve()
    assert sorted(p.name for p in package.iterdir()) == ["__init__.py", "analysis", "errors.py", "store"]


def test_the_layout_is_the_top_when_the_top_is_the_package(tmp_path):
    top = tmp_path / "checkout"
    (top / "analysis").mkdir(parents=True)
    (top / "analysis" / "ppi.py").write_text("")
    (top / "pyproject.toml").write_text('[tool.setuptools.package-dir]\n"fairval" = "."\n')
    package = lint.package_layout(top, tmp_path / "layout") / "fairval"
    assert package.is_symlink() and package.resolve() == top.resolve()
    assert (package / "analysis" / "ppi.py").exists()
