"""fairval.web: the app's own files, installed as package data of the one import name `fairval`.

This top folder is mapped to `fairval.web` (pyproject.toml), so a wheel and a checkout find the same
files through importlib.resources: app.py (what a rater's link opens), serve.py (what `fairval serve`
runs), pages/ (the researcher pages), examples/ (the demo's items) and .streamlit/config.toml."""
from __future__ import annotations

from importlib import resources
from pathlib import Path


def folder() -> Path:
    """Where app.py, serve.py, pages/ and examples/ are, installed or in a checkout."""
    return Path(str(resources.files(__name__)))


if __name__ == "fairval":
    # A checkout in a folder named `fairval` (what `git clone` makes), imported by pytest: a test module's
    # package is named after the folder holding the outermost __init__.py, so this top folder is imported
    # as `fairval`, ahead of the package itself. Become the package pyproject.toml maps: fairval/ first,
    # then this folder's rooms (annotate/, store/, ui/, analysis/, tests/), and fairval.web is this file again.
    import importlib.util as _util
    import sys as _sys

    _top = Path(__file__).resolve().parent
    _web = _util.spec_from_file_location("fairval.web", __file__, submodule_search_locations=[str(_top)])
    _sys.modules["fairval.web"] = _util.module_from_spec(_web)
    _web.loader.exec_module(_sys.modules["fairval.web"])
    web = _sys.modules["fairval.web"]
    __path__ = [str(_top / "fairval"), str(_top)]
    _real = _top / "fairval" / "__init__.py"
    exec(compile(_real.read_text(encoding="utf-8"), str(_real), "exec"), globals())
