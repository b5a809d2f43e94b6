"""Researcher page: create, configure, import, open/pause/close."""
from ui.auth import require_researcher
from ui.manage_view import render

require_researcher()
render()
