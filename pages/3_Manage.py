"""Researcher page: create, configure, import, open/pause/close."""
from fairval.ui.auth import require_researcher
from fairval.ui.common import guarded
from fairval.ui.manage_view import render

require_researcher("editor")
guarded(render)
