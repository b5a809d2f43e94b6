"""Researcher page: how well the LLM judge tracks people."""
from fairval.ui.auth import require_researcher
from fairval.ui.common import guarded
from fairval.ui.calibration_view import render

require_researcher()
guarded(render)
