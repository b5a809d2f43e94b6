"""Researcher page: downloads of the validated set, raw ratings and the report."""
from fairval.ui.auth import require_researcher
from fairval.ui.common import guarded
from fairval.ui.export_view import render

require_researcher()
guarded(render)
