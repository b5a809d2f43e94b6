"""Researcher page: a study's progress and numbers."""
from ui.auth import require_researcher
from ui.results_view import render

require_researcher()
render()
