"""A Prolific launch in real browsers: N Chromium contexts open the study link at the same moment through
`fairval serve --workers W`, fetch every page and static file a participant's browser does, consent,
start and answer their items. Optionally one worker is killed by its PID once every rater has answered
an item; its raters must go on without reloading.

Used by tests/e2e/test_launch_browser.py (20 browsers) and by `bench/run.py launch` (20 and 50
browsers, 2 workers against 1, as ratios in one run).
"""
from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.streamlit_server import children as child_pids

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PROGRESS = re.compile(r"^(\d+) of \d+ done$")
FINISHED = "you have finished"
RELOAD_AFTER_MS = 90_000   # after a worker is killed: how long a rater waits on "Saving…" before reloading
STEP_MS = 600_000           # one step of one rater: 50 Chromium contexts starting on 2 cores take minutes
CLICK_MS = 120_000          # one click on the card; a disabled ("Saving…") card is looked at again instead


@dataclass
class Launch:
    first_page: dict[str, float] = field(default_factory=dict)    # rater -> seconds to the consent page
    acknowledged: dict[str, list[str]] = field(default_factory=dict)   # rater -> items seen acknowledged
    moved: dict[str, tuple] = field(default_factory=dict)         # rater -> worker before and after the kill
    killed: str | None = None
    reloads: int = 0                                              # raters who had to reload after the kill
    boot_reloads: int = 0                                         # pages that reloaded themselves (server/boot.js)
    seconds: float = 0.0

    @property
    def judgments(self) -> int:
        return sum(len(v) for v in self.acknowledged.values())

    def first_page_median(self) -> float:
        return statistics.median(self.first_page.values())


def worker_ports(serve_pid: int) -> dict[str, tuple[int, int]]:
    """Worker name (HAProxy's server name) -> (port, pid), read from `fairval serve`'s children."""
    children = []
    for pid in child_pids(serve_pid):
        try:
            children.append((pid, Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")))
        except OSError:
            continue
    haproxy, config = next((pid, args[args.index(b"-f") + 1].decode()) for pid, args in children if b"-f" in args)
    if config.startswith("/dev/fd/"):       # `serve` hands HAProxy its configuration as an in-memory file
        config = f"/proc/{haproxy}/fd/{config.removeprefix('/dev/fd/')}"
    port_of = {int(m.group(2)): m.group(1) for m in
               re.finditer(r"server (\S+) 127\.0\.0\.1:(\d+)", Path(config).read_text())}
    out = {}
    for pid, args in children:
        if b"--server.port" in args:
            port = int(args[args.index(b"--server.port") + 1])
            out[port_of[port]] = (port, pid)
    return out


async def _progress(page) -> int:
    text = await page.get_by_text(PROGRESS).first.inner_text()
    return int(PROGRESS.match(text).group(1))


async def _item(page) -> str:
    return await page.get_by_test_id("stText").first.inner_text()


async def _settled(page) -> None:
    await page.locator('[data-stale="true"]').first.wait_for(state="detached", timeout=STEP_MS)


async def _answer(page, done: int, quality: str, yes: str, out: Launch | None = None) -> None:
    """Choose both answers and Submit, as a rater does, until the page moves on. If it comes back with
    the same item and Submit enabled again (the answer never reached a live worker: the card is told
    so by the next page the server sends), choose and Submit again, as a rater would."""
    advanced = page.get_by_text(re.compile(rf"^{done + 1} of \d+ done$")).or_(page.get_by_text(FINISHED))
    for _ in range(6):
        if not await advanced.count():
            try:
                await page.get_by_role("button", name=re.compile(rf"^{quality}(\s|$)")).nth(0).click(timeout=CLICK_MS)
                await page.get_by_role("button", name=re.compile(rf"^{yes}(\s|$)")).nth(1).click(timeout=CLICK_MS)
                await page.get_by_role("button", name="Submit").click(timeout=CLICK_MS)
            except Exception:
                pass           # through) or the page moved on: look below at what it shows now
        try:
            await advanced.or_(page.locator(".fv-submit:not([disabled])")).first.wait_for(
                timeout=RELOAD_AFTER_MS if out is not None else STEP_MS)
        except Exception:
            if out is None:
                raise
            out.reloads += 1
            await page.reload(timeout=STEP_MS)
            await page.get_by_text(PROGRESS).or_(page.get_by_text(FINISHED)).first.wait_for(timeout=STEP_MS)
        await _settled(page)
        if await advanced.count():
            return
    raise AssertionError(f"{page.url}: the answer was not acknowledged after 6 submits")


async def _press(page, button: str, then) -> None:
    """Press a button until what it leads to shows, as a person would press again when a loaded page
    let the first press go by (a press while the page was still being drawn)."""
    deadline = time.monotonic() + STEP_MS / 1000
    while True:
        target = page.get_by_role("button", name=button)
        if await target.count():
            with contextlib.suppress(Exception):  # the page moved on meanwhile
                await target.first.click(timeout=30_000)
        try:
            await then.first.wait_for(timeout=30_000)
            return
        except Exception:
            if time.monotonic() > deadline:
                raise


async def _cookie(context) -> str | None:
    return {c["name"]: c["value"] for c in await context.cookies()}.get("fairval_worker")


async def rater(browser, url: str, name: str, out: Launch, gate: asyncio.Event | None,
                answered_one: asyncio.Queue | None, ids: dict[str, str]) -> None:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    seen: list[str] = []                 # what went wrong in the browser, for a rater who gets stuck
    page.on("requestfailed", lambda r: seen.append(f"request failed: {r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and seen.append(f"HTTP {r.status}: {r.url}"))
    page.on("console", lambda m: m.type in ("error", "warning") and seen.append(f"console {m.type}: {m.text}"))
    page.on("console", lambda m: m.text.startswith("fairval: reloading the page") and _count_boot(out))
    page.on("pageerror", lambda e: seen.append(f"page error: {e}"))
    page.on("crash", lambda _: seen.append("the page crashed"))
    try:
        await _rate(page, context, url, name, out, gate, answered_one, ids)
    except Exception as e:
        shown = await page.locator("body").inner_text(timeout=10_000)
        html = await page.content()
        raise AssertionError(f"rater {name} (worker {await _cookie(context)}): {e}\nthe page shows: "
                             f"{shown[:1000]}\nthe browser saw: {seen[-20:]}\nthe page's HTML ({len(html)} "
                             f"characters) begins: {html[:600]}") from e
    await context.close()


def _count_boot(out: Launch) -> None:
    out.boot_reloads += 1


async def _rate(page, context, url, name, out, gate, answered_one, ids) -> None:
    started = time.monotonic()
    await page.goto(f"{url}/?study=launch&PROLIFIC_PID={name}&STUDY_ID=L1&SESSION_ID=s-{name}", timeout=STEP_MS)
    await page.get_by_role("button", name="I agree to take part").or_(
        page.get_by_text("No items left")).first.wait_for(timeout=STEP_MS)
    out.first_page[name] = time.monotonic() - started
    if await page.get_by_text("No items left").count():     # a full (or fully reserved) study says so first
        out.acknowledged[name] = []
        return
    await _press(page, "I agree to take part", page.get_by_role("button", name="Start"))
    await _press(page, "Start", page.get_by_text(PROGRESS).or_(page.get_by_text("No items left")))
    out.acknowledged[name] = []
    while True:
        await page.get_by_text(PROGRESS).or_(page.get_by_text(FINISHED)).or_(
            page.get_by_text("No items left")).first.wait_for(timeout=STEP_MS)
        await _settled(page)
        if await page.get_by_text(FINISHED).count() or await page.get_by_text("No items left").count():
            break
        done, text = await _progress(page), await _item(page)
        if gate is not None and len(out.acknowledged[name]) == 1:
            before = await _cookie(context)
            await answered_one.put(name)
            await gate.wait()                                   # a worker is killed here, mid-item
            await _answer(page, done, "Somewhat agree", "Strongly agree", out)
            out.moved[name] = (before, await _cookie(context))
        else:
            await _answer(page, done, "Somewhat agree", "Strongly agree")
        out.acknowledged[name].append(ids[text])                # the item on screen when Submit was pressed


async def launch(url: str, n: int, ids: dict[str, str], *, kill_worker=None) -> Launch:
    """n raters open the link together. kill_worker(): called once every rater who has a second item
    on screen waits with it unanswered; it kills a worker and returns its name."""
    from playwright.async_api import async_playwright

    out = Launch()
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        gate = asyncio.Event() if kill_worker else None
        answered = asyncio.Queue() if kill_worker else None
        started = time.monotonic()
        tasks = [asyncio.create_task(rater(browser, url, f"P{k:03d}", out, gate, answered, ids)) for k in range(n)]
        if kill_worker:
            waiting = 0
            while waiting < n and not all(t.done() for t in tasks):
                try:
                    await asyncio.wait_for(answered.get(), timeout=5)
                    waiting += 1
                except TimeoutError:
                    if any(t.done() and t.exception() for t in tasks):
                        break
                    if waiting + sum(t.done() for t in tasks) >= n:
                        break
            out.killed = kill_worker()
            gate.set()
        await asyncio.gather(*tasks)
        out.seconds = time.monotonic() - started
        await browser.close()
    return out


def kill(serve_pid: int, worker: str) -> str:
    _, pid = worker_ports(serve_pid)[worker]
    os.kill(pid, signal.SIGKILL)
    return worker


def one_run(folder: Path, workers: int, browsers: int, per_rater: int) -> tuple[Launch, dict]:
    """A study with enough items for `browsers` raters × `per_rater` items at 3 raters per item, served by
    `fairval serve --workers N`; returns the launch and what the database holds."""
    from bench.streamlit_server import fairval_serve
    from fairval.annotate.material.importers import import_items
    from fairval.annotate.material.studies import create_study
    from fairval.store import open_db

    location = folder / f"launch-{browsers}-{workers}.db"
    items = {f"q{i:03d}": f"Launch question {i}: should the application be approved?"
             for i in range(browsers * per_rater // 3 + 5)}       # spare slots, as a real study has
    db = open_db(location)
    create_study(db, "launch", "template_quality", raters_per_item=3, max_items_per_rater=per_rater, seed=4)
    items_file = folder / f"launch-{browsers}-{workers}.jsonl"
    items_file.write_text("".join(f'{{"id": "{k}", "filled_template": "{t}"}}\n' for k, t in items.items()))
    import_items(db, "launch", items_file)
    db.close()
    with fairval_serve(location, workers=workers) as server:
        result = asyncio.run(launch(server.url, browsers, {t: k for k, t in items.items()}))
    db = open_db(location)
    stored = db.execute("SELECT rater_id, item_id, COUNT(*) FROM ratings GROUP BY rater_id, item_id").fetchall()
    over = db.scalar("SELECT COUNT(*) FROM (SELECT item_id FROM ratings GROUP BY item_id "
                     "HAVING COUNT(DISTINCT rater_id) > 3) AS o")
    db.close()
    acknowledged = sorted((r, i) for r, got in result.acknowledged.items() for i in got)
    check = {"stored": len(stored), "lost": len(set(acknowledged) - {(r, i) for r, i, _ in stored}),
             "doubled": sum(1 for *_, n in stored if n != 2), "over": over}
    return result, check


def run(folder: Path, quick: bool = False) -> list[str]:
    crowds, per_rater = ((4,), 2) if quick else ((20, 50), 3)
    lines = []
    for browsers in crowds:
        try:
            runs = {w: one_run(folder, w, browsers, per_rater) for w in (1, 2)}
        except Exception as e:
            lines.append(f"{browsers:3} browsers at once: did not finish ({type(e).__name__}: "
                         f"{str(e).splitlines()[0][:160]})")
            continue
        (one, c1), (two, c2) = runs[1], runs[2]
        rate1, rate2 = one.judgments / one.seconds, two.judgments / two.seconds
        lines.append(
            f"{browsers:3} browsers at once: 2 workers / 1 worker items per second {rate2:.2f} / {rate1:.2f} = "
            f"{rate2 / rate1:.2f}x; first page (consent) median {two.first_page_median():.1f} / "
            f"{one.first_page_median():.1f} s ({two.first_page_median() / one.first_page_median():.2f}x), "
            f"slowest {max(two.first_page.values()):.1f} / {max(one.first_page.values()):.1f} s; "
            f"stored {c2['stored']} and {c1['stored']} of {browsers * per_rater}, "
            f"{c2['lost'] + c1['lost']} lost, {c2['doubled'] + c1['doubled']} doubled, "
            f"{(c2['over'] or 0) + (c1['over'] or 0)} over cap; pages that reloaded themselves "
            f"{two.boot_reloads} / {one.boot_reloads}")
    return lines


USAGE = ("usage: python -m bench.launch table [participants ...] [--workers 1,2] [--backends sqlite,postgresql] "
         "[--window 60] [--whole-page] [--floor | --no-floor]")
HELP = ("Issue 58's table, over Streamlit's websocket protocol (bench/arrivals.py): the participants (default 100 "
        "250 500) arrive over --window seconds, for each number of --workers and each database backend. --whole-page: "
        "every press reruns the whole page, as the table's figures before stop 65 were measured (a browser names the "
        "fragment the pressed widget was drawn in). --floor (the default): each number of participants is also sent, with "
        "the same arrivals, to bare Streamlit (bench/load.py's floor app, no database), whose row goes under each table "
        "with a line \"fairval / floor = Nx\" per run; --no-floor leaves it out.")
BACKENDS = ("sqlite", "postgresql")


def _whole(word: str, what: str) -> int:
    """A count of at least 1, or one line naming the word that is not one (no traceback)."""
    if not word.isdigit() or int(word) < 1:
        raise SystemExit(f"bench.launch table: {word!r} is not {what} (a whole number of at least 1); {USAGE}")
    return int(word)


def parse(argv: list[str]) -> dict | None:
    """`table`'s words: {counts, workers, backends, window, whole_page, floor}, or None for --help."""
    from bench import arrivals

    if "--help" in argv or "-h" in argv:
        return None
    if not argv or argv[0] != "table":
        raise SystemExit(f"bench.launch: {'no command' if not argv else repr(argv[0]) + ' is not a command'}; {USAGE}")
    options = {"--workers": "1,2", "--backends": ",".join(BACKENDS), "--window": str(arrivals.WINDOW)}
    counts = []
    whole_page = False
    floor = True
    rest = iter(argv[1:])
    for word in rest:
        if word == "--whole-page":
            whole_page = True
        elif word in ("--floor", "--no-floor"):
            floor = word == "--floor"
        elif word in options:
            value = next(rest, None)
            if value is None or value.startswith("--"):
                raise SystemExit(f"bench.launch table: {word} needs a value; {USAGE}")
            options[word] = value
        elif word.startswith("-"):
            raise SystemExit(f"bench.launch table: {word!r} is not an option; {USAGE}")
        else:
            counts.append(_whole(word, "a number of participants"))
    workers = tuple(_whole(w, "a number of workers") for w in options["--workers"].split(","))
    backends = tuple(options["--backends"].split(","))
    unknown = [b for b in backends if b not in BACKENDS]
    if unknown:
        raise SystemExit(f"bench.launch table: {unknown[0]!r} is not a backend (choose from {', '.join(BACKENDS)}); "
                         f"{USAGE}")
    try:
        window = float(options["--window"])
    except ValueError:
        window = -1.0
    if not window > 0 or window == float("inf"):
        raise SystemExit(f"bench.launch table: {options['--window']!r} is not a window in seconds (a number above "
                         f"0); {USAGE}")
    return {"counts": tuple(counts) or (100, 250, 500), "workers": workers, "backends": backends, "window": window,
            "whole_page": whole_page, "floor": floor}


def main(argv: list[str]) -> None:
    """`python -m bench.launch table …`: issue 58's table (HELP)."""
    import tempfile

    from bench import arrivals

    chosen = parse(argv)
    if chosen is None:
        print(f"{USAGE}\n\n{HELP}")
        return
    arrivals.WINDOW = chosen["window"]
    arrivals.WHOLE_PAGE = chosen["whole_page"]
    with tempfile.TemporaryDirectory() as tmp:
        lines = arrivals.run(Path(tmp), chosen["counts"], chosen["workers"], chosen["backends"], chosen["window"],
                              floor=chosen["floor"])
    print("\n".join(lines))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
