"""The answer card's script and CSS go over the wire once per page (issue 58): Streamlit serves them as files of
the card's asset directory (ui/card/, named in pyproject.toml), and each mount of the card carries only its data.
Before, all 17 KB went in every mount, 10 times per participant. The route that serves them is a door of its
own: it serves those two files with their content types, and nothing else (no listing, no way out of the folder).

Against a real `fairval serve`, over Streamlit's own websocket protocol, as a browser's tab speaks it."""
from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e.conftest import Server
from tests.e2e.streamlit_client import Tab, connect

CARD_DIR = Path(__file__).resolve().parents[2] / "ui" / "card"
ITEMS = 10
ANSWER = {"quality": "4", "yes_positive": "5"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("card-assets")
    db = open_db(folder / "fairval.db")
    create_study(db, "walk", "template_quality", raters_per_item=1, max_items_per_rater=ITEMS, seed=1)
    import_items(db, "walk", write_jsonl(folder / f"items-{uuid.uuid4().hex}.jsonl",
                                         [{"id": f"q{i}", "filled_template": f"Question {i}?"} for i in range(ITEMS)]))
    db.close()
    running = Server(folder / "fairval.db")
    yield running
    running.stop()


class Recorded:
    """The tab's websocket, keeping every message the server sent as it came over the wire."""

    def __init__(self, ws):
        self.ws, self.messages = ws, []

    async def send(self, message) -> None:
        await self.ws.send(message)

    async def recv(self):
        message = await self.ws.recv()
        self.messages.append(message)
        return message


def _walk(url: str) -> tuple[list[bytes], list, list]:
    """A participant's way through 10 items: the messages of each item's page (the 1st item's page, then the
    page each Submit brought), the cards drawn, and every message of the walk."""
    async def go():
        async with connect(url) as ws:
            wire = Recorded(ws)
            tab = Tab(wire, query=f"study=walk&rater=r-{uuid.uuid4().hex[:8]}")
            await tab.run()
            await tab.press("I agree to take part")
            await tab.press("Start")
            per_item, cards = [], []
            start = 0
            while (card := tab.card()) is not None:
                per_item.append(b"".join(wire.messages[start:]))
                cards.append(card)
                start = len(wire.messages)
                trigger = WidgetState(id=f"$$STREAMLIT_INTERNAL_KEY_{card.id}__events")
                trigger.json_trigger_value = json.dumps(
                    [{"event": "submit", "value": {"item": json.loads(card.json)["item"], "answers": ANSWER,
                                                   "comment": None}}])
                await tab.run([trigger])
            return per_item, cards, wire.messages
    return asyncio.run(go())


def _get(url: str) -> tuple[int, dict, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as refused:
        return refused.code, {k.lower(): v for k, v in refused.headers.items()}, refused.read()


def test_the_cards_script_and_css_are_not_sent_again_with_each_item(server):
    per_item, cards, _ = _walk(server.url)
    assert len(per_item) == ITEMS, f"{len(per_item)} items shown, {ITEMS} expected"
    script = (CARD_DIR / "answer_card.js").read_text(encoding="utf-8")
    style = (CARD_DIR / "answer_card.css").read_text(encoding="utf-8")
    # a line of each file that says what it is, found where the file was sent inline (as on main)
    script_line = next(line for line in script.splitlines() if "function" in line).encode()
    style_line = next(line for line in style.splitlines() if "{" in line).encode()
    for k, messages in enumerate(per_item[1:], 2):
        again = [name for name, line in (("script", script_line), ("CSS", style_line)) if line in messages]
        assert not again, f"item {k}'s page carries the card's {' and '.join(again)} again"
    for k, card in enumerate(cards, 1):
        assert not card.js_content and not card.css_content, f"item {k}'s card has its script or CSS inline"
        assert (card.js_source_path, card.css_source_path) == ("answer_card.js", "answer_card.css")
    # what the browser fetches instead: the files themselves, as they are in ui/card/
    first = cards[0]
    for path, text, kind in ((first.js_source_path, script, "javascript"), (first.css_source_path, style, "text/css")):
        status, headers, body = _get(f"{server.url}/_stcore/bidi-components/{first.component_name}/{path}")
        assert status == 200 and body.decode() == text, (path, status)
        assert kind in headers["content-type"], (path, headers["content-type"])
        assert headers["x-content-type-options"] == "nosniff"
        assert "frame-ancestors 'self'" in headers["content-security-policy"]


def test_the_card_assets_route_serves_nothing_but_the_cards_files(server):
    base = f"{server.url}/_stcore/bidi-components/fairval.fairval_answer_card"
    status, _, body = _get(f"{base}/answer_card.js")
    assert status == 200 and b"function" in body, status          # the door exists (main: 404)
    source = (CARD_DIR.parent / "answer_card.py").read_bytes()[:60]
    for path in ("", "/", "/..", "/../answer_card.py", "/%2e%2e/answer_card.py", "/..%2fanswer_card.py",
                 "/../../pyproject.toml", "/%2e%2e%2f%2e%2e%2fpyproject.toml", "/../../../../../../etc/passwd",
                 "//etc/passwd", "/missing.js", "/answer_card.js%00.css"):
        status, _, body = _get(base + path)
        assert status in (400, 404), f"{path!r}: {status}"
        assert source not in body and b"[project]" not in body and b"root:" not in body, path
    # another package's name, or fairval's folder under a name the manifest does not give, is no door either
    for name in ("fairval", "fairval.ui", "fairval.fairval_page_language", "streamlit"):
        status, _, _ = _get(f"{server.url}/_stcore/bidi-components/{name}/answer_card.js")
        assert status == 404, f"{name}: {status}"
