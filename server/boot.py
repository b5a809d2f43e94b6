"""Streamlit's index.html with fairval's boot watchdog (server/boot.js) in front of Streamlit's own scripts.

Served through st.App (serve.py) for the app's root and each page's address, ahead of Streamlit's
static files, so every worker and a single `fairval serve` send the same page. Everything else
(scripts, fonts, the websocket) is Streamlit's as before.
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route


def _watchdog() -> str:
    return (resources.files("fairval.server") / "boot.js").read_text(encoding="utf-8")


def _pages() -> Path:
    import fairval
    return fairval.files() / "pages"


def streamlit_index() -> Path:
    import streamlit
    return Path(streamlit.__file__).parent / "static" / "index.html"


@lru_cache(maxsize=1)
def page_html() -> str:
    """index.html with the watchdog as the first script of <head>; refuses a page it cannot place it in."""
    html = streamlit_index().read_text(encoding="utf-8")
    head = re.search(r"<head[^>]*>", html)
    first_script = html.find("<script")
    if head is None or first_script < head.end():
        raise RuntimeError(f"{streamlit_index()}: no <head> before the first <script>; the boot watchdog "
                           "cannot be placed (has Streamlit's page changed?)")
    script = "\n    <script>" + _watchdog() + "</script>"
    return html[:head.end()] + script + html[head.end():]


def page_paths() -> list[str]:
    """The root and each page's address (pages/1_Results.py is /Results, as Streamlit names it)."""
    return ["/", *sorted("/" + re.sub(r"^\d+_", "", p.stem) for p in _pages().glob("*.py"))]


async def index(_request: Request) -> HTMLResponse:
    # no-cache, as Streamlit sends its own index.html: a browser asks again, so an upgrade reaches it
    return HTMLResponse(page_html(), headers={"Cache-Control": "no-cache"})


ROUTES = [Route(path, index, methods=["GET", "HEAD"]) for path in page_paths()]
