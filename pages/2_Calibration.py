"""Researcher page: how well the LLM judge tracks people."""
from fairval.ui.auth import require_researcher
from fairval.ui.calibration_view import render
from fairval.ui.common import guarded

require_researcher()
guarded(render)
