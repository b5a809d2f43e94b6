"""Researcher page: a study's progress and numbers."""
from fairval.ui.auth import require_researcher
from fairval.ui.common import guarded
from fairval.ui.results_view import render

require_researcher()
guarded(render)
