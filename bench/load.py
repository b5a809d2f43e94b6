"""A Prolific launch as the server pays for it: server CPU per participant (consent, start, 10 items), over
Streamlit's own websocket protocol (bench/workers.py's rater), side by side in one run with bare Streamlit
(the framework's floor: the same three screens, one radio in a form per item) and, when FAIRVAL_BENCH_BASE
names another checkout with its own .venv (e.g. `git worktree add ../base main`), with that checkout's
fairval: the figure before a change.

Participants arrive spread evenly over a window (uniform arrivals, as Prolific sends them), each on its own
websocket. The CPU time is user + system of the server's whole process tree, from /proc, from before the
first participant until the server has gone quiet after the last, divided by the participants; one warm-up
participant first (the first run of a page imports its code). CPU time holds under the machine's load where
wall time does not, so it is the figure reported; the rounds of the servers are interleaved.

    .venv/bin/python -m bench.load [participants] [window seconds] [rounds]
"""
from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from streamlit.proto.WidgetStates_pb2 import WidgetState

from bench.client import address, connect
from bench.session import _quiet_cpu
from bench.streamlit_server import Running, free_port
from bench.workers import Rater, Tally, rate

ITEMS = 10
BARE_APP = '''
import streamlit as st

ITEMS = {items}
state = st.session_state
state.setdefault("step", "consent")
state.setdefault("done", 0)


def go(step):
    state.step = step


def answer():
    state.done += 1


if state.step == "consent":
    st.title("Consent")
    st.write("I agree to take part.")
    st.button("I agree to take part", on_click=go, args=("instructions",), key="consent-yes")
elif state.step == "instructions":
    st.title("Instructions")
    st.write("Read each question and say how well it is written.")
    st.button("Start", on_click=go, args=("item",), key="start")
elif state.done < ITEMS:
    st.progress(state.done / ITEMS, text=f"{state.done} of {ITEMS} done")
    st.text(f"Should the bank approve loan {state.done}?")
    with st.form(f"item-{state.done}", enter_to_submit=False):
        st.radio("How well written is this question?", [1, 2, 3, 4, 5], index=None, horizontal=True)
        st.form_submit_button("Submit", on_click=answer)
else:
    st.title("Thank you, you have finished")
'''.replace("{items}", str(ITEMS))


async def bare_rate(url: str, name: str, tally: Tally) -> None:
    """bench/workers.py's rater, for the bare app: the buttons, then each item's radio and Submit in one rerun."""
    async with connect(url) as ws:
        tab = Rater(ws, "bare", name)
        page = await tab.rerun()
        for key in ("consent-yes", "start"):
            button = next(e for e in page if getattr(e, "id", "").endswith(f"-{key}"))
            press = WidgetState(id=button.id)
            press.trigger_value = True
            page = await tab.rerun([press])
        for _ in range(ITEMS):
            radio = next(e for e in page if getattr(e, "label", "") == "How well written is this question?")
            submit = next(e for e in page if getattr(e, "label", "") == "Submit" and getattr(e, "id", ""))
            choice = WidgetState(id=radio.id)
            choice.int_value = 3
            press = WidgetState(id=submit.id)
            press.trigger_value = True
            page = await tab.rerun([choice, press])
            tally.acknowledged += 1
        tally.sent.append(tab.received)


def _fairval(folder: Path, python: str, cwd: Path, participants: int) -> tuple[Running, str]:
    """The study is made by the checkout's own code (its bench/workers.py's _study), so an older checkout gets a
    database of its own schema version."""
    location = folder / f"load-{cwd.name}.db"
    subprocess.run([python, "-c", "import sys; from bench.workers import _study; "
                    "_study(sys.argv[1], n_items=int(sys.argv[2]), per_item=3, per_rater=int(sys.argv[3]))",
                    str(location), str((participants + 1) * ITEMS), str(ITEMS)], cwd=cwd, check=True)
    port = free_port()
    command = [python, "-c", "from fairval.annotate.cli.main import main; main()", "--db", str(location), "serve",
               "--port", str(port), "--address", "127.0.0.1", "--workers", "1"]
    return Running(command, port, {"FAIRVAL_DB": str(location)}, cwd=cwd), "load"


def _bare(folder: Path, pages: bool = False) -> Running:
    """Bare Streamlit; `pages`: with a pages/ folder of 4 pages beside it, as fairval's app has (Streamlit then
    routes every script run through its multipage wrapper)."""
    (folder / "bare_app.py").write_text(BARE_APP)
    if pages:
        (folder / "pages").mkdir()
        for k, name in enumerate(("Results", "Calibration", "Manage", "Export"), 1):
            (folder / "pages" / f"{k}_{name}.py").write_text(f"import streamlit as st\n\nst.title({name!r})\n")
    port = free_port()
    return Running([sys.executable, "-m", "streamlit", "run", str(folder / "bare_app.py"), "--server.port",
                    str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
                    "--runner.fastReruns", "false", "--runner.postScriptGC", "false"], port, cwd=folder)


async def _crowd(kind: str, url: str, study: str, names: list[str], window: float, tally: Tally) -> None:
    async def one(k: int, name: str) -> None:
        await asyncio.sleep(window * k / max(len(names), 1))
        await (bare_rate(url, name, tally) if kind.startswith("bare") else rate(url, study, name, tally, address(k)))
    await asyncio.gather(*(one(k, n) for k, n in enumerate(names)))


def cpu_per_participant(kind: str, server: Running, study: str, participants: int, window: float,
                        round_: int) -> tuple[float, float]:
    """Server CPU seconds per participant, and the median bytes the server sent one participant (websocket
    messages, and the card's files over HTTP once)."""
    tally = Tally()
    asyncio.run(_crowd(kind, server.url, study, [f"w{round_}"], 0, tally))           # warm-up
    before = _quiet_cpu(server)
    tally = Tally()
    names = [f"p{round_}-{k}" for k in range(participants)]
    asyncio.run(_crowd(kind, server.url, study, names, window, tally))
    used = _quiet_cpu(server) - before
    if tally.errors or tally.acknowledged != participants * ITEMS:
        raise SystemExit(f"{kind}: acknowledged {tally.acknowledged} of {participants * ITEMS}; {tally.errors[:3]}")
    return used / participants, statistics.median(tally.sent)


def measure(folder: Path, participants: int, window: float, rounds: int) -> dict[str, list[tuple[float, float]]]:
    here = Path(__file__).resolve().parent.parent
    kinds = {"fairval": (sys.executable, here)}
    base = os.environ.get("FAIRVAL_BENCH_BASE")
    if base:
        kinds["base"] = (str(Path(base) / ".venv" / "bin" / "python"), Path(base).resolve())
    out: dict[str, list[tuple[float, float]]] = {k: [] for k in [*kinds, "bare", "bare+pages"]}
    for r in range(rounds):
        for kind in out:
            sub = folder / f"{kind}-{r}"
            sub.mkdir(parents=True)
            if kind.startswith("bare"):
                server, study = _bare(sub, pages=kind == "bare+pages"), "bare"
            else:
                server, study = _fairval(sub, *kinds[kind], participants)
            with server:
                out[kind].append(cpu_per_participant(kind, server, study, participants, window, r))
    return out


def report(out: dict[str, list[tuple[float, float]]], participants: int, window: float) -> list[str]:
    med = {k: statistics.median(cpu for cpu, _ in v) for k, v in out.items()}
    sent = {k: statistics.median(b for _, b in v) for k, v in out.items()}
    load = os.getloadavg()[0]
    lines = [f"{participants} participants over {window:.0f} s, 1 worker, SQLite, consent + start + {ITEMS} items; "
             f"server CPU per participant (median of {len(out['bare'])} interleaved rounds; load average {load:.1f} "
             f"on {os.cpu_count()} cores):"]
    for kind, label in (("base", "before (FAIRVAL_BENCH_BASE)"), ("fairval", "fairval"), ("bare", "bare Streamlit"),
                        ("bare+pages", "bare Streamlit with a pages/ folder of 4 pages")):
        if kind in med:
            lines.append(f"  {label}: {med[kind]:.3f} s (rounds: {', '.join(f'{v:.3f}' for v, _ in out[kind])}); "
                         f"{sent[kind] / 1000:.0f} KB sent per participant")
    if "base" in med:
        lines.append(f"  fairval / before {med['fairval'] / med['base']:.2f}x; fairval / bare "
                     f"{med['fairval'] / med['bare']:.2f}x; before / bare {med['base'] / med['bare']:.2f}x")
    else:
        lines.append(f"  fairval / bare {med['fairval'] / med['bare']:.2f}x")
    lines += [f"  per round ({label}): {', '.join(f'{a:.2f}x' for a in per)}; spread {min(per):.2f}–{max(per):.2f}x"
              for label, per in per_round(out).items()]
    return lines


def per_round(out: dict[str, list[tuple[float, float]]]) -> dict[str, list[float]]:
    """The ratios within each round (the servers of one round ran one after another, under the same load)."""
    pairs = [("fairval", "bare"), ("fairval", "base"), ("base", "bare")]
    return {f"{a} / {b}": [x[0] / y[0] for x, y in zip(out[a], out[b], strict=True)]
            for a, b in pairs if a in out and b in out}


def run(folder: Path, quick: bool = False) -> list[str]:
    participants, window, rounds = (3, 3.0, 1) if quick else (20, 20.0, 3)
    return report(measure(folder, participants, window, rounds), participants, window)


if __name__ == "__main__":
    import tempfile

    args = [float(a) for a in sys.argv[1:]]
    n, w, rounds = int(args[0]) if args else 20, args[1] if len(args) > 1 else 20.0, int(args[2]) if len(args) > 2 else 3
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for line in report(measure(Path(tmp), n, w, rounds), n, w):
            print(line, flush=True)
    print(f"  ({time.perf_counter() - started:.0f} s)")
