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
