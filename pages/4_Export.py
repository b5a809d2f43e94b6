"""Researcher page: downloads of the validated set, raw ratings and the report."""
from ui.auth import require_researcher
from ui.export_view import render

require_researcher()
render()
