"""Bytes on the wire for a participant's first page, as a browser meets it: Debian's Chromium opens a rater
link (the consent screen of a demo study), and Chrome's own network log (CDP Network.loadingFinished's
encodedDataLength, plus the websocket's frames) sums what came over the connection. Then the same
participant opens the link again (a returning participant: the browser's cache holds what it may).

Side by side in one run: `fairval serve` with one worker, `fairval serve --workers 2` (HAProxy in front),
and Streamlit as shipped (`streamlit run app.py`, no compression of its static files): the peer.
"""
from __future__ import annotations

import shutil

from bench.streamlit_server import ROOT, Running, fairval_serve, free_port
from fairval.annotate.material.demo import ensure_demo
from fairval.store import open_db

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
KIB = 1024


def _streamlit_as_shipped(db_path) -> Running:
    import sys
    port = free_port()
    return Running([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(port),
                    "--server.address", "127.0.0.1", "--server.headless", "true"], port, {"FAIRVAL_DB": str(db_path)})


def _visit(browser, url: str) -> tuple[int, int]:
    """(first visit, returning visit) bytes on the wire for the consent screen of `url`."""
    context = browser.new_context()
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    counted = {"bytes": 0}
    cdp.on("Network.loadingFinished", lambda e: counted.__setitem__("bytes", counted["bytes"] + int(e["encodedDataLength"])))
    cdp.on("Network.webSocketFrameReceived",
           lambda e: counted.__setitem__("bytes", counted["bytes"] + len(e["response"].get("payloadData", ""))))
    totals = []
    for _ in range(2):
        counted["bytes"] = 0
        page.goto(url)
        page.get_by_role("button", name="I agree to take part").wait_for(timeout=60_000)
        page.wait_for_load_state("networkidle")
        totals.append(counted["bytes"])
    context.close()
    return totals[0], totals[1]


def run(folder, quick: bool = False) -> list[str]:
    from playwright.sync_api import sync_playwright

    db_path = folder / "pages.db"
    db = open_db(db_path)
    ensure_demo(db)
    db.close()
    servers = {"fairval serve, 1 worker": lambda: fairval_serve(db_path),
               "fairval serve --workers 2 (HAProxy)": lambda: fairval_serve(db_path, workers=2),
               "Streamlit as shipped (streamlit run)": lambda: _streamlit_as_shipped(db_path)}
    found = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for k, (name, start) in enumerate(servers.items()):
            with start() as server:
                found[name] = _visit(browser, f"{server.url}/?study=demo-templates&rater=bytes{k}")
        browser.close()
    peer = found["Streamlit as shipped (streamlit run)"][0]
    return ["first page (consent), bytes on the wire: " + "; ".join(
                f"{name} {first / KIB:,.0f} KiB ({first / peer:.2f}x), returning {again / KIB:,.0f} KiB"
                for name, (first, again) in found.items())]
