"""Lint and types, as `make test` runs them: `python tools/lint.py` (both), `... ruff` or `... mypy`.

ruff reads [tool.ruff] and mypy [tool.mypy] in pyproject.toml. mypy finds modules by their path, and the
checkout maps folders into `fairval` (pyproject's [tool.setuptools.package-dir]), so the package is laid
out as that mapping says, in symbolic links under build/typecheck/, and mypy runs there."""
from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
LAYOUT = TOP / "build" / "typecheck"


def package_layout(top: Path = TOP, into: Path = LAYOUT) -> Path:
    """A folder in which `fairval.x.y` is at fairval/x/y.py, built from pyproject's package-dir."""
    setup = tomllib.loads((top / "pyproject.toml").read_text(encoding="utf-8"))["tool"].get("setuptools", {})
    mapping = {name: (top / folder).resolve() for name, folder in setup.get("package-dir", {}).items()}
    root = mapping.get("fairval", (top / "fairval").resolve())
    # a package mapped to a folder that holds the root's (fairval.web is the checkout's top) is left out:
    # mypy would see each module twice
    inner = {name.removeprefix("fairval."): folder for name, folder in mapping.items()
             if name != "fairval" and not root.is_relative_to(folder)}
    package = into / "fairval"
    if package.is_symlink() or package.is_file():
        package.unlink()
    elif package.exists():
        for link in package.iterdir():
            link.unlink()
        package.rmdir()
    into.mkdir(parents=True, exist_ok=True)
    if not inner:                                     # the folder is the package: one link
        package.symlink_to(root, target_is_directory=True)
        return into
    package.mkdir()
    for entry in root.iterdir():
        if entry.name not in inner and (entry.suffix == ".py" or (entry / "__init__.py").exists()):
            (package / entry.name).symlink_to(entry)
    for name, folder in inner.items():
        if "." not in name:                           # nested mappings sit inside their parent's folder
            (package / name).symlink_to(folder, target_is_directory=True)
    return into


def ruff() -> int:
    return subprocess.call([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", str(TOP)],
                           cwd=TOP)


def mypy() -> int:
    where = package_layout()
    env = {**os.environ, "MYPYPATH": ""}
    return subprocess.call([sys.executable, "-m", "mypy", "--config-file", str(TOP / "pyproject.toml")],
                           cwd=where, env=env)


if __name__ == "__main__":
    wanted = sys.argv[1:] or ["ruff", "mypy"]
    checks = {"ruff": ruff, "mypy": mypy}
    unknown = [w for w in wanted if w not in checks]
    if unknown:
        sys.exit(f"unknown check {unknown[0]!r}: choose from {', '.join(checks)}")
    failed = [w for w in wanted if checks[w]() != 0]
    sys.exit(f"{' and '.join(failed)} failed (see above)" if failed else 0)
