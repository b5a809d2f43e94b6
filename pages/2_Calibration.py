"""Researcher page: how well the LLM judge tracks people."""
from ui.auth import require_researcher
from ui.calibration_view import render

require_researcher()
render()
