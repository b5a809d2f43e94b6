"""`fairval serve` attacked from outside, as a client would: Streamlit's websocket protocol with headers of
the attacker's choosing, and plain HTTP requests. Nothing here signs in first."""
from __future__ import annotations

import asyncio

import pytest

from fairval.store import open_db
from tests.e2e.conftest import Server
from tests.e2e.streamlit_client import Tab, connect


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("attacked")
    open_db(folder / "fairval.db").close()
    running = Server(folder / "fairval.db")          # `fairval serve --address 127.0.0.1`, one process
    yield running
    running.stop()


async def _guess(url: str, password: str, forwarded_for: str) -> list[str]:
    async with connect(url, {"X-Forwarded-For": forwarded_for}) as ws:
        tab = Tab(ws, page="Results")
        await tab.run()
        await tab.submit_form({"Password": password}, "Sign in")
        return tab.texts()


def test_guesses_from_rotating_forwarded_addresses_are_held_back(server):
    """14 wrong passwords, each claiming another address in X-Forwarded-For: a single `fairval serve` has no
    front of its own, so the header is nobody's word and every guess counts against the real peer."""
    said = [asyncio.run(_guess(server.url, f"guess-{k}", f"198.51.100.{k}")) for k in range(14)]
    held = [k for k, texts in enumerate(said) if any("Too many wrong passwords" in t for t in texts)]
    checked = [k for k, texts in enumerate(said) if any("not right" in t for t in texts)]
    assert len(held) + len(checked) == 14, said
    # five free tries, then waits doubling from 2 s: however slow this machine, most guesses wait
    assert checked[:5] == [0, 1, 2, 3, 4] and len(held) >= 3, said
    db = open_db(server.db_path)
    try:
        counted = {r[0] for r in db.execute("SELECT DISTINCT client FROM sign_in_failures").fetchall()}
    finally:
        db.close()
    assert counted == {"address 127.0.0.1", "account "}, counted         # no forwarded address believed
