"""A Prolific launch as participants meet it (issue 58's table): N participants arriving evenly over a window
through `fairval serve --workers W`, each on its own websocket speaking Streamlit's protocol as a browser
does (bench/workers.py's rater): the link, consent, start, 10 items through the answer card's Submit. A page
that waits (the line page, or a store's warning that retries by itself) is waited on as the browser would:
its fragment's timer (Streamlit's auto_rerun) is honoured, so the participant goes on when the page does.

Per run, in the issue's columns: participants finished, error pages (the store's warning, a traceback),
line pages seen (participants who met "You are in line"), submit→next p50/p95, first item p95 (the link
until the first item's card, line included), the server's CPU per participant (user + system of its whole
process tree, HAProxy included, from /proc, until it has gone quiet), acknowledged answers lost or stored
twice. The load average goes beside every table: the wall-clock columns mean little on a loaded machine.

With `floor` (the default), each number of participants is also sent, with the same arrivals, to bare Streamlit
(bench/load.py's floor app: the same three screens, one radio in a form per item, one process, no database):
its row goes under each table with a line "fairval / floor = Nx" per run, so a table taken on any machine
carries the figure that machine's Streamlit needs for the same work.

    .venv/bin/python -m bench.launch table [participants ...] [--workers 1,2] [--backends sqlite,postgresql]
"""
from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.client import Tab, address, connect
from bench.session import _quiet_cpu
from bench.streamlit_server import fairval_serve, tree
from bench.workers import _button, _card, _stored, _study, _submit

ITEMS = 10
WINDOW = 60.0
GIVE_UP = 900.0            # a participant still not through after this long is counted as not finished
WHOLE_PAGE = False         # True: every press reruns the whole page (what this bench sent before; a browser names
                           # the fragment a widget was drawn in, and Streamlit reruns that fragment alone)
IN_LINE = "You are in line"
ERRORS = ("cannot store", "Something went wrong")


@dataclass
class Participant:
    finished: bool = False
    error: bool = False                           # met the store's warning or a traceback, at least once
    line: bool = False                            # met the line page, at least once
    first_item: float | None = None
    latencies: list[float] = field(default_factory=list)
    acknowledged: int = 0


def _texts(elements: list) -> list[str]:
    return [getattr(e, "body", "") for e in elements]


def _waiting(elements: list, who: Participant) -> bool:
    """Whether the page is one that waits (the line, the store's warning); counts what the participant met."""
    texts = _texts(elements)
    if IN_LINE in texts:
        who.line = True
        return True
    if any(any(e in t for e in ERRORS) for t in texts) or any(hasattr(e, "stack_trace") for e in elements):
        who.error = True
        return True
    return False


async def _settle(tab: Tab, page: list, who: Participant, until: float) -> list:
    """Wait on a waiting page as a browser does: its fragment's timer reruns it until the page moves on. The
    timer is Streamlit's setInterval: it fires every period from when it was set, however long a run takes (a
    tick during a run is queued, and runs as soon as that run ends)."""
    fired = time.monotonic()
    while _waiting(page, who) and time.monotonic() < until:
        if not tab.timers:
            raise RuntimeError(f"a waiting page without a timer: {_texts(page)}")
        fragment, seconds = next(iter(tab.timers.items()))
        fired += seconds
        await asyncio.sleep(max(0.0, fired - time.monotonic()))
        fired = max(fired, time.monotonic() - seconds)   # ticks missed during a long run fire once, not in a burst
        shown = await tab.rerun(fragment=fragment, timer=True)
        if tab.whole:
            page = shown                                   # the fragment let the whole page run again
    return page


def _fragment(tab: Tab, element) -> str:
    """The fragment a browser names when the element is pressed: the one that drew it."""
    return "" if WHOLE_PAGE else tab.fragment_of.get(element.id, "")


async def participant(url: str, study: str, name: str, who: Participant, source: str | None = None) -> None:
    arrived = time.monotonic()
    until = arrived + GIVE_UP
    async with connect(url, GIVE_UP, source) as ws:
        tab = Tab(ws, f"study={study}&PROLIFIC_PID={name}&STUDY_ID=L1&SESSION_ID=s-{name}")
        page = await _settle(tab, await tab.rerun(), who, until)
        for key in ("consent-yes", "start"):
            button = _button(page, key)
            if button is None:
                raise RuntimeError(f"{name}: no {key!r} button; the page says {_texts(page)}")
            page = await _settle(tab, await tab.rerun([button], _fragment(tab, button)), who, until)
        while (card := _card(page)) is not None and time.monotonic() < until:
            if who.first_item is None:
                who.first_item = time.monotonic() - arrived
            sent = time.monotonic()
            page = await _settle(tab, await tab.rerun([_submit(card)], _fragment(tab, card)), who, until)
            following = _card(page)
            if following is not None and json.loads(following.json)["item"] == json.loads(card.json)["item"]:
                continue                                   # not taken (a pending answer): Submit again
            who.acknowledged += 1
            who.latencies.append(time.monotonic() - sent)
        who.finished = who.acknowledged == ITEMS


async def _crowd(url: str, n: int, window: float) -> dict[str, Participant]:
    people = {f"P{k:04d}": Participant() for k in range(n)}

    async def one(k: int, name: str) -> None:
        await asyncio.sleep(window * k / n)
        try:
            await participant(url, "load", name, people[name], address(k))
        except Exception as e:
            people[name].error = True
            print(f"  {name}: {type(e).__name__}: {str(e)[:200]}", flush=True)
    await asyncio.gather(*(one(k, name) for k, name in enumerate(people)))
    return people


def _pct(values: list[float], q: float) -> float | None:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else None


def _database_cpu(pid: int | None) -> float:
    """CPU time of the PostgreSQL server's process tree (its postmaster and backends, ended ones included)."""
    if pid is None:
        return 0.0
    total = 0
    for one in tree(pid):
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
    return total / os.sysconf("SC_CLK_TCK")


def one_run(location, workers: int, n: int, window: float = WINDOW, env: dict | None = None,
            database_pid: int | None = None) -> dict:
    """database_pid: the PostgreSQL postmaster this run alone uses, whose CPU is reported beside the server's."""
    _study(location, n_items=n * ITEMS // 3 + 10, per_item=3, per_rater=ITEMS)
    load_before = os.getloadavg()[0]
    with fairval_serve(location, workers=workers, env=env) as server:
        before, database_before = _quiet_cpu(server), _database_cpu(database_pid)
        started = time.monotonic()
        people = asyncio.run(_crowd(server.url, n, window))
        seconds = time.monotonic() - started
        cpu = _quiet_cpu(server) - before
        database_cpu = _database_cpu(database_pid) - database_before
    judged, doubled, _over = _stored(location)
    acknowledged = sum(p.acknowledged for p in people.values())
    latencies = [x for p in people.values() for x in p.latencies]
    firsts = [p.first_item for p in people.values() if p.first_item is not None]
    return {"n": n, "workers": workers, "finished": sum(p.finished for p in people.values()),
            "errors": sum(p.error for p in people.values()), "line": sum(p.line for p in people.values()),
            "p50": _pct(latencies, 0.5), "p95": _pct(latencies, 0.95), "first95": _pct(firsts, 0.95),
            "cpu": cpu / n, "database_cpu": database_cpu / n if database_pid else None,
            "lost": max(0, acknowledged - judged), "doubled": doubled, "seconds": seconds,
            "load": (load_before, os.getloadavg()[0]), "window": window}


def floor_run(folder: Path, n: int, window: float = WINDOW) -> dict:
    """Bare Streamlit (bench/load.py's floor app) driven by the same arrivals as one_run: its CPU per participant."""
    from bench.load import _bare, bare_rate
    from bench.workers import Tally

    sub = folder / f"floor-{n}"
    sub.mkdir(parents=True, exist_ok=True)
    tally = Tally()
    finished = 0

    async def crowd() -> None:
        async def one(k: int) -> None:
            nonlocal finished
            await asyncio.sleep(window * k / n)
            before = tally.acknowledged
            try:
                await bare_rate(url, f"F{k:04d}", tally)
                finished += tally.acknowledged - before >= ITEMS
            except Exception as e:
                tally.errors.append(f"F{k:04d}: {type(e).__name__}: {str(e)[:200]}")
        await asyncio.gather(*(one(k) for k in range(n)))

    load_before = os.getloadavg()[0]
    with _bare(sub) as server:
        url = server.url
        before = _quiet_cpu(server)
        asyncio.run(crowd())
        cpu = _quiet_cpu(server) - before
    for error in tally.errors[:3]:
        print(f"  floor: {error}", flush=True)
    return {"n": n, "finished": finished, "errors": len(tally.errors), "cpu": cpu / n,
            "load": (load_before, os.getloadavg()[0])}


def floor_lines(rows: list[dict], floors: dict[int, dict]) -> list[str]:
    """The floor's row for each number of participants in `rows`, in the table's columns, and each run's ratio."""
    lines = []
    for n in dict.fromkeys(r["n"] for r in rows):
        if n in floors:
            f = floors[n]
            lines.append(f"| {n} | floor: bare Streamlit, 1 process, no database | {f['finished']} | {f['errors']} | – | "
                         f"– | – | {f['cpu']:.3f} s | – | – | {f['load'][0]:.1f} → {f['load'][1]:.1f} |")
    for r in rows:
        if r["n"] in floors and floors[r["n"]]["cpu"] > 0:
            lines.append(f"fairval / floor = {r['cpu'] / floors[r['n']]['cpu']:.1f}x ({r['n']} participants, "
                         f"{r['workers']} worker{'s' if r['workers'] > 1 else ''}; server CPU per participant "
                         f"{r['cpu']:.3f} s / {floors[r['n']]['cpu']:.3f} s)")
    return lines


def _ms(x: float | None) -> str:
    return "–" if x is None else (f"{x * 1000:,.0f} ms" if x < 1 else f"{x:.1f} s")


def _database(row: dict) -> str:
    return "" if row.get("database_cpu") is None else f" (+ PostgreSQL's own {row['database_cpu']:.3f} s)"


def table(rows: list[dict], backend: str) -> list[str]:
    window = rows[0]["window"] if rows else WINDOW
    lines = [f"{backend}, {os.cpu_count()} cores, arrivals spread evenly over {window:g} s, consent + start + "
             f"{ITEMS} items each:",
             "| participants | workers | finished | met an error page | met the line page | submit→next p50 / p95 | "
             "first item p95 | server CPU per participant | lost | doubled | load average (before → after) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['n']} | {r['workers']} | {r['finished']} | {r['errors']} | {r['line']} | "
                     f"{_ms(r['p50'])} / {_ms(r['p95'])} | {_ms(r['first95'])} | {r['cpu']:.3f} s{_database(r)} | {r['lost']} | "
                     f"{r['doubled']} | {r['load'][0]:.1f} → {r['load'][1]:.1f} |")
    return lines


def run(folder: Path, counts=(100, 250, 500), workers=(1, 2), backends=("sqlite", "postgresql"),
        window: float = WINDOW, floor: bool = True) -> list[str]:
    """floor: each count is sent to bare Streamlit too (once, before that count's first fairval run)."""
    lines: list[str] = []
    floors: dict[int, dict] = {}
    for backend in backends:
        cluster = None
        if backend == "postgresql":
            from tests.postgres import PostgresCluster, server_binaries
            if server_binaries() is None:
                lines.append("postgresql: not installed here (make test installs it); skipped")
                continue
            cluster = PostgresCluster()
        rows = []
        try:
            for n in counts:
                if floor and n not in floors:
                    floors[n] = floor_run(folder, n, window)
                    print(floor_lines([{"n": n, "cpu": 0.0, "workers": 1}], floors)[0], flush=True)   # its row alone
                for w in workers:
                    location = cluster.create_database() if cluster else folder / f"arrivals-{n}-{w}.db"
                    rows.append(one_run(location, w, n, window,
                                        database_pid=cluster.process.pid if cluster else None))
                    print("\n".join(table(rows[-1:], backend)[-1:]), flush=True)
        finally:
            if cluster is not None:
                cluster.stop()
        lines += table(rows, backend) + floor_lines(rows, floors)
    return lines
