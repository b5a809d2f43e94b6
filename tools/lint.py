"""Lint and types, as `make check` and `make test` run them: `python tools/lint.py` (both), `... ruff` or `... mypy`.

Each tool is run plainly at the top, as an editor runs it: ruff reads [tool.ruff] and mypy [tool.mypy] of
pyproject.toml, which names the package (`fairval`) and where it is found (`.typing/fairval`, a link to the top)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent


def ruff() -> int:
    return subprocess.call([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", str(TOP)],
                           cwd=TOP)


def mypy() -> int:
    return subprocess.call([sys.executable, "-m", "mypy"], cwd=TOP)


if __name__ == "__main__":
    wanted = sys.argv[1:] or ["ruff", "mypy"]
    checks = {"ruff": ruff, "mypy": mypy}
    unknown = [w for w in wanted if w not in checks]
    if unknown:
        sys.exit(f"unknown check {unknown[0]!r}: choose from {', '.join(checks)}")
    failed = [w for w in wanted if checks[w]() != 0]
    sys.exit(f"{' and '.join(failed)} failed (see above)" if failed else 0)
