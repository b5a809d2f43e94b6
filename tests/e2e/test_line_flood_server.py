"""A launch under a client that lies (issue 58), through `fairval serve --workers 2` and its HAProxy front, over
Streamlit's own websocket protocol: a flood of made-up participant IDs from one address does not keep a real
participant from another address out, and a classroom behind one address gets in. Bounds sized for the test
(the shipped ones are checked in tests/annotate/serving/test_front_sessions.py)."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import websockets

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e.conftest import Server
from tests.e2e.streamlit_client import Tab


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder: Path = tmp_path_factory.mktemp("flood")
    db = open_db(folder / "fairval.db")
    create_study(db, "launch", "template_quality", raters_per_item=3, seed=1)
    import_items(db, "launch", write_jsonl(folder / "items.jsonl",
                                           [{"id": f"q{i}", "filled_template": f"Question {i}?"} for i in range(4)]))
    db.close()
    running = Server(folder / "fairval.db", workers=2,
                     env={"FAIRVAL_MOST_ACTIVE": "80", "FAIRVAL_SESSIONS_PER_10S": "35",
                          "FAIRVAL_SESSIONS_PER_3MIN": "35"})
    yield running
    running.stop()


async def _arrive(url: str, who: str, source: str) -> str:
    """One participant's first page from `source`: "consent", "line", or "turned back" (HTTP 429)."""
    host = url.split("://", 1)[1]
    try:
        async with websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"],
                                      additional_headers={"Origin": f"http://{host}"}, max_size=None,
                                      open_timeout=60, ping_interval=None, local_addr=(source, 0)) as ws:
            tab = Tab(ws, query=f"study=launch&PROLIFIC_PID={who}&STUDY_ID=L&SESSION_ID=s-{who}")
            await tab.run()
            texts = " ".join(tab.texts())
    except websockets.InvalidStatus as e:
        assert e.response.status_code == 429, e
        return "turned back"
    return "line" if "in line" in texts else "consent" if "Consent" in texts else texts


def test_made_up_ids_from_one_address_leave_room_for_a_participant_from_another(server):
    async def launch():
        classroom = [await _arrive(server.url, f"pupil{k}", "127.0.0.2") for k in range(30)]
        flood = [await _arrive(server.url, f"fake{k}", "127.0.0.3") for k in range(60)]
        real = await _arrive(server.url, "real", "127.0.0.4")
        return classroom, flood, real

    classroom, flood, real = asyncio.run(launch())
    assert classroom == ["consent"] * 30                      # a class of 30 behind one address, all in
    assert flood[:35] == ["consent"] * 35 and flood[35:] == ["turned back"] * 25, flood
    assert real == "consent"                                  # on main: all 80 places taken, "in line"
