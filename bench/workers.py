"""Raters at once against `fairval serve`: 1 worker against N, on SQLite and on PostgreSQL.

Each simulated rater speaks Streamlit's own websocket protocol, as the browser does: it sends the
page's query string (study and rater id) and widget events (the consent and start buttons, the
answer card's Submit with its answers), and reads the page the server sends back. Nothing is
shortcut: every step runs the rater page script in a worker, through the proxy when N > 1.

Measured per run: judgments per second over the whole run, and submit→next (Submit sent until the
next item's card has arrived) p50/p95. Afterwards the database must hold exactly the acknowledged
judgments: none lost, none doubled, no item past its raters.
"""
from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from streamlit.proto.WidgetStates_pb2 import WidgetState

from bench.client import Tab, connect
from bench.streamlit_server import fairval_serve
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db

ANSWER = {"quality": "4", "yes_positive": "5"}
CARD = "fairval_answer_card"


@dataclass
class Tally:
    acknowledged: int = 0                                # submits followed by the next screen
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    sent: list[int] = field(default_factory=list)       # per participant: bytes the server sent (see sent_bytes)


class Rater(Tab):
    """One browser tab's conversation with the server, as a rater of `study` (bench/client.py)."""

    def __init__(self, ws, study: str, rater: str):
        super().__init__(ws, f"study={study}&rater={rater}")
        self.assets: set[str] = set()    # the card's files served over HTTP (component/path)


def _button(elements: list, key: str) -> WidgetState | None:
    for e in elements:
        if getattr(e, "id", "").endswith(f"-{key}") and hasattr(e, "label"):
            state = WidgetState(id=e.id)
            state.trigger_value = True
            return state
    return None


def _card(elements: list):
    return next((e for e in elements if getattr(e, "component_name", "").endswith(CARD)), None)


def assets_bytes(url: str, paths: set[str]) -> int:
    """The bytes of the files the page's components load over HTTP, fetched once and compressed, as a browser
    tab does: it imports the module once per page, and takes the stylesheet each mount links from its cache
    (a freshness server/component_assets.py gives it; Chromium fetched it for every mount before)."""
    total = 0
    for path in sorted(paths):
        request = urllib.request.Request(f"{url}/_stcore/bidi-components/{path}",
                                         headers={"Accept-Encoding": "gzip, deflate, br"})
        with urllib.request.urlopen(request, timeout=60) as response:      # urllib keeps the gzip on
            total += len(response.read())
    return total


def _submit(card) -> WidgetState:
    state = WidgetState(id=f"$$STREAMLIT_INTERNAL_KEY_{card.id}__events")
    payload = {"item": json.loads(card.json)["item"], "answers": ANSWER, "comment": None}
    state.json_trigger_value = json.dumps([{"event": "submit", "value": payload}])
    return state


async def rate(url: str, study: str, rater: str, tally: Tally, source: str | None = None) -> None:
    async with connect(url, source=source) as ws:
        tab = Rater(ws, study, rater)
        page = await tab.rerun()
        for key in ("consent-yes", "start"):
            button = _button(page, key)
            if button is None:
                texts = [getattr(e, "body", "") for e in page]
                raise RuntimeError(f"{rater}: no {key!r} button on the page; it says {texts}")
            page = await tab.rerun([button], tab.fragment_of.get(button.id, ""))
        while (card := _card(page)) is not None:
            tab.assets.update(f"{card.component_name}/{path}" for path in (card.js_source_path, card.css_source_path)
                              if path)
            sent = time.perf_counter()
            page = await tab.rerun([_submit(card)], tab.fragment_of.get(card.id, ""))
            if _card(page) is not None and json.loads(_card(page).json)["item"] == json.loads(card.json)["item"]:
                tally.errors.append(f"{rater}: the same item came back after Submit")
                return
            tally.acknowledged += 1
            tally.latencies.append(time.perf_counter() - sent)
        tally.sent.append(tab.received + await asyncio.to_thread(assets_bytes, url, tab.assets))


def _study(location: Path | str, n_items: int, per_item: int, per_rater: int) -> Path | str:
    db = open_db(location)
    create_study(db, "load", "template_quality", raters_per_item=per_item, max_items_per_rater=per_rater, seed=1)
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"fairval-bench-items-{os.getpid()}.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{k}", "filled_template": f"Question {k}?"}) + "\n"
                            for k in range(n_items)))
    import_items(db, "load", path)
    path.unlink()
    db.close()
    return location


def _stored(location) -> tuple[int, int, int]:
    """Judgments stored, (item, rater) pairs stored twice, items past their raters."""
    db = open_db(location)
    try:
        judged = db.execute("SELECT COUNT(*) FROM (SELECT DISTINCT item_id, rater_id FROM ratings "
                            "WHERE study_id = 'load') AS j").fetchone()[0]
        doubled = db.execute("SELECT COUNT(*) FROM (SELECT item_id, rater_id, question FROM ratings "
                             "WHERE study_id = 'load' GROUP BY item_id, rater_id, question "
                             "HAVING COUNT(*) > 1) AS d").fetchone()[0]
        over = db.execute("SELECT COUNT(*) FROM (SELECT item_id FROM ratings WHERE study_id = 'load' "
                          "AND question = 'quality' GROUP BY item_id HAVING COUNT(*) > 3) AS o").fetchone()[0]
        return judged, doubled, over
    finally:
        db.close()


async def _crowd(url: str, raters: int, tally: Tally) -> None:
    await asyncio.gather(*(rate(url, "load", f"r{k}", tally) for k in range(raters)))


def one_run(location, workers: int, raters: int, per_rater: int) -> dict:
    _study(location, n_items=raters * per_rater, per_item=3, per_rater=per_rater)
    tally = Tally()
    with fairval_serve(location, workers=workers) as server:
        start = time.perf_counter()
        asyncio.run(_crowd(server.url, raters, tally))
        elapsed = time.perf_counter() - start
    judged, doubled, over = _stored(location)
    lost = tally.acknowledged - judged
    if tally.errors or lost or doubled or over or tally.acknowledged != raters * per_rater:
        raise SystemExit(f"{workers} worker(s), {raters} raters: acknowledged {tally.acknowledged} of "
                         f"{raters * per_rater}, stored {judged}, doubled {doubled}, over the cap {over}; "
                         f"{tally.errors[:3]}")
    lat = sorted(tally.latencies)
    return {"rate": tally.acknowledged / elapsed, "p50": statistics.median(lat) * 1000,
            "p95": lat[int(0.95 * (len(lat) - 1))] * 1000, "judged": judged}


def run(folder: Path, quick: bool = False, backends: tuple[str, ...] = ("sqlite", "postgresql")) -> list[str]:
    crowds, per_rater, n = ((4,), 3, 2) if quick else ((20, 50), 10, 2)
    cluster = None
    lines = []
    for backend in backends:
        if backend == "postgresql":
            from tests.postgres import PostgresCluster, server_binaries
            if server_binaries() is None:
                lines.append("PostgreSQL: not installed here (make test installs it); skipped")
                continue
            cluster = PostgresCluster()
        try:
            for raters in crowds:
                results = {}
                for workers in (1, n):
                    location = (cluster.create_database() if cluster else
                                folder / f"workers-{backend}-{raters}-{workers}.db")
                    results[workers] = one_run(location, workers, raters, per_rater)
                one, many = results[1], results[n]
                lines.append(
                    f"{backend:10} {raters:3} raters: {n} workers / 1 worker judgments per second "
                    f"{many['rate']:.1f} / {one['rate']:.1f} = {many['rate'] / one['rate']:.2f}x; submit→next p50 "
                    f"{many['p50']:.0f} / {one['p50']:.0f} ms, p95 {many['p95']:.0f} / {one['p95']:.0f} ms "
                    f"({many['p95'] / one['p95']:.2f}x); stored {many['judged']} and {one['judged']} of "
                    f"{raters * per_rater}, 0 lost, 0 doubled")
        finally:
            if cluster is not None:
                cluster.stop()
                cluster = None
    return lines
