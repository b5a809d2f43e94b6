"""A rater's session as the server pays for it: fairval against Potato, with bare Streamlit as the framework's
floor, side by side in one run.

The same study in each: 200 items, one 1-5 question, a consent screen and an instructions screen before
the first item. Each participant is a fresh browser context in Debian's Chromium, one after another: it
opens the link, agrees, starts, and answers items (the fourth answer, then the tool's Next or Submit).
Measured per participant:

- login: the server's CPU time (user + system of its whole process tree, from /proc) from before the link
  is opened until the first item is on the screen and the server has gone quiet;
- per item: the same CPU time over the items answered, divided by their number;
- bytes: what came over the wire until the first item was shown (Chrome's network log: every response's
  encoded length, plus websocket frames received).

fairval runs as `fairval serve` (one worker); Potato (potato-annotation, pinned below) is installed into the
benchmark's own venv (~/.cache/fairval-bench) and started with `potato start`, its consent and instructions
as phases; bare Streamlit is the same three screens written with Streamlit alone (callbacks, one run per
click, the answer in a form), run with fairval's Streamlit and the runner options `fairval serve` gives it
(fastReruns and postScriptGC off). Also reported: the server's resident memory (VmRSS of its process tree)
after the warm-up and after the last participant, so that leaving garbage collection to Python shows
whether memory grows.
"""
from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.startup import rss_mib
from bench.streamlit_server import Running, fairval_serve, free_port, tree
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db

POTATO = "potato-annotation==2.12.1"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
ITEMS = 200
CONSENT = "I agree to take part."
TASK = {"name": "bench-scale", "title": "Question quality", "display": "template",
        "questions": [{"id": "quality", "prompt": "How well written is this question?", "level": "ordinal",
                       "options": [1, 2, 3, 4, 5]}],
        "instructions": "Read each question and say how well it is written."}

BARE_APP = '''
import streamlit as st

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
    st.button("I agree to take part", on_click=go, args=("instructions",))
elif state.step == "instructions":
    st.title("Instructions")
    st.write("Read each question and say how well it is written.")
    st.button("Start", on_click=go, args=("item",))
else:
    st.caption(f"{state.done} of 200 done")
    st.text(f"Should the bank approve loan {state.done}?")
    with st.form(f"item-{state.done}", enter_to_submit=False):
        st.radio("How well written is this question?", [1, 2, 3, 4, 5], index=None, horizontal=True)
        st.form_submit_button("Submit", on_click=answer)
'''


def _question(k: int) -> str:
    return f"Should the bank approve loan {k}?"


def _potato_python() -> Path:
    venv = Path.home() / ".cache" / "fairval-bench" / POTATO.replace("==", "-")
    done = venv / ".installed"          # written last: an install cut off half-way is redone, not trusted
    if not done.exists():
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        # PyYAML named as well: Potato declares it, yet one install here came without it (potato start then
        # failed on `import yaml`); the import below proves the install before it is trusted
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", POTATO, "pyyaml"], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-c", "import potato.flask_server"], check=True,
                       capture_output=True)
        done.touch()
    return venv / "bin" / "python"


def _potato(folder: Path) -> Running:
    (folder / "data").mkdir(parents=True)
    (folder / "surveys").mkdir()
    (folder / "data" / "items.json").write_text(
        "".join(json.dumps({"id": f"i{k}", "text": _question(k)}) + "\n" for k in range(ITEMS)))
    (folder / "surveys" / "consent.json").write_text(json.dumps([{
        "id": "1", "name": "consent", "description": CONSENT, "annotation_type": "radio",
        "labels": ["I agree", "I do not agree"], "label_requirement": {"required_label": ["I agree"]}}]))
    (folder / "surveys" / "instructions.json").write_text(json.dumps({
        "id": "1", "name": "read", "description": TASK["instructions"], "annotation_type": "radio",
        "labels": ["Start"], "label_requirement": {"required_label": ["Start"]}}))
    config = {
        "annotation_task_name": "bench", "task_dir": ".", "output_annotation_dir": "annotation_output/",
        "output_annotation_format": "jsonl", "data_files": ["data/items.json"],
        "item_properties": {"id_key": "id", "text_key": "text"},
        "user_config": {"allow_all_users": True, "users": []}, "require_password": False,
        "login": {"type": "url_direct", "url_argument": "PROLIFIC_PID"}, "alert_time_each_instance": 10000000,
        "phases": {"order": ["consent", "instructions", "annotation"],
                   "consent": {"type": "consent", "file": "surveys/consent.json"},
                   "instructions": {"type": "instructions", "file": "surveys/instructions.json"}},
        "annotation_schemes": [{"annotation_type": "likert", "name": "quality", "description": TASK["questions"][0]["prompt"],
                                "min_label": "Poorly", "max_label": "Very well", "size": 5,
                                "sequential_key_binding": True}],
        "site_dir": "default"}
    (folder / "config.yaml").write_text(json.dumps(config))           # YAML is a superset of JSON
    port = free_port()
    potato = _potato_python().parent / "potato"
    return Running([str(potato), "start", "config.yaml", "-p", str(port)], port, health="/", cwd=folder)


def _fairval(folder: Path) -> Running:
    folder.mkdir(parents=True)
    db = open_db(folder / "fairval.db")
    create_study(db, "bench", task_definition=TASK, raters_per_item=1000, seed=1, consent_text=CONSENT)
    items = folder / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"i{k}", "filled_template": _question(k)}) + "\n" for k in range(ITEMS)))
    import_items(db, "bench", items)
    db.close()
    return fairval_serve(folder / "fairval.db")


def _bare(folder: Path) -> Running:
    folder.mkdir(parents=True)
    (folder / "bare_app.py").write_text(BARE_APP)
    port = free_port()
    return Running([sys.executable, "-m", "streamlit", "run", str(folder / "bare_app.py"), "--server.port",
                    str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
                    "--runner.fastReruns", "false", "--runner.postScriptGC", "false"], port, cwd=folder)


def _rss_mib(server: Running) -> float:
    return sum(rss_mib(pid) for pid in tree(server.process.pid))


def _quiet_cpu(server: Running) -> float:
    """The server's CPU time once it has stopped using any (two reads 0.3 s apart agree; at most 5 s)."""
    last = server.cpu_seconds()
    for _ in range(16):
        time.sleep(0.3)
        now = server.cpu_seconds()
        if now == last:
            return now
        last = now
    return last


class Walk:
    """How a participant gets through each tool: link, consent, start, first item shown, one answer."""

    def __init__(self, kind: str):
        self.kind = kind

    def link(self, url: str, n: int) -> str:
        return {"fairval": f"{url}/?study=bench&rater=p{n}", "potato": f"{url}/?PROLIFIC_PID=p{n}",
                "bare": f"{url}/"}[self.kind]

    def login(self, page) -> None:
        if self.kind == "potato":
            page.get_by_text(CONSENT).wait_for()
            page.locator("input[type=radio]").first.check()
            page.locator("#next-btn").click()
            page.get_by_text(TASK["instructions"]).wait_for()
            page.locator("input[type=radio]").first.check()
            page.locator("#next-btn").click()
            page.locator("#quality_4_radio").wait_for(state="attached")
            return
        page.get_by_role("button", name="I agree to take part").click()
        page.get_by_role("button", name="Start").click()
        if self.kind == "fairval":
            page.locator(".fv-option").first.wait_for()
        else:
            page.get_by_text("0 of 200 done").wait_for()

    def answer(self, page, k: int) -> None:
        if self.kind == "potato":
            before = page.locator("#instance_id").input_value()
            page.locator("#quality_4_radio").check()
            page.locator("#next-btn").click()
            page.wait_for_function("b => document.querySelector('#instance_id').value !== b", arg=before)
            return
        if self.kind == "fairval":
            page.locator(".fv-option").nth(3).click()
            page.get_by_role("button", name="Submit").click()
        else:
            page.get_by_text("4", exact=True).click()
            page.get_by_role("button", name="Submit").click()
        page.get_by_text(f"{k + 1} of 200 done").first.wait_for()


def _participants(browser, server: Running, walk: Walk, names: range, items: int) -> dict[str, list[float]]:
    login, per_item, wire = [], [], []
    for n in names:
        context = browser.new_context()
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        counted = {"bytes": 0}
        cdp.on("Network.loadingFinished",
               lambda e, counted=counted: counted.__setitem__("bytes", counted["bytes"] + int(e["encodedDataLength"])))
        cdp.on("Network.webSocketFrameReceived",
               lambda e, counted=counted: counted.__setitem__(
                   "bytes", counted["bytes"] + len(e["response"].get("payloadData", ""))))
        before = _quiet_cpu(server)
        page.goto(walk.link(server.url, n))
        walk.login(page)
        shown = _quiet_cpu(server)
        wire.append(counted["bytes"])
        for k in range(items):
            walk.answer(page, k)
        after = _quiet_cpu(server)
        login.append(shown - before)
        per_item.append((after - shown) / items)
        context.close()
    return {"login": login, "item": per_item, "bytes": wire}


def run(folder: Path, quick: bool = False) -> list[str]:
    from playwright.sync_api import sync_playwright

    count, items = (2, 3) if quick else (6, 10)
    starts = {"fairval": _fairval, "potato": _potato, "bare": _bare}
    results, memory = {}, {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for kind, start in starts.items():
            with start(folder / f"session-{kind}") as server:
                _participants(browser, server, Walk(kind), range(1), 1)      # warm: the first visit loads code
                warm = _rss_mib(server)
                results[kind] = _participants(browser, server, Walk(kind), range(1, count + 1), items)
                memory[kind] = (warm, _rss_mib(server))
        browser.close()
    def x(a: float, b: float) -> str:          # a ratio; CPU is counted in ticks of 10 ms, so b can be 0
        return f"{a / b:.2f}x" if b else "n/a (0 ticks)"

    med = {kind: {k: statistics.median(v) for k, v in r.items()} for kind, r in results.items()}
    f, pot, bare = med["fairval"], med["potato"], med["bare"]
    return [
        f"{count} participants each, one after another, {items} items each; medians (after one warm-up participant):",
        f"login server CPU (link to first item shown): fairval {f['login']:.3f} s, Potato {pot['login']:.3f} s, "
        f"bare Streamlit {bare['login']:.3f} s; fairval/Potato {x(f['login'], pot['login'])}, "
        f"fairval/bare {x(f['login'], bare['login'])}",
        f"server CPU per item answered: fairval {f['item']:.4f} s, Potato {pot['item']:.4f} s, bare Streamlit "
        f"{bare['item']:.4f} s; fairval/Potato {x(f['item'], pot['item'])}, fairval/bare {x(f['item'], bare['item'])}",
        f"bytes on the wire until the first item: fairval {f['bytes'] / 1024:,.0f} KiB, Potato {pot['bytes'] / 1024:,.0f} KiB, "
        f"bare Streamlit {bare['bytes'] / 1024:,.0f} KiB (this is a fresh browser; bench/run.py pages has the returning one)",
        "server memory (VmRSS) after the warm-up -> after the last participant: " + "; ".join(
            f"{kind} {before:.0f} -> {after:.0f} MiB" for kind, (before, after) in memory.items()),
    ]
