"""Choosing an answer in a real Chromium: the answer card (chosen in the browser, Submit the only round
trip) against the way options worked before (a Streamlit button per option, each click a rerun).

The "before" page is the old option mechanism alone on the same item (st.button per option with its
on_click, the chosen one primary, Submit a rerun that shows the next item), without the old rater
page's database reads on every rerun: so the ratio understates what raters gained.
"""
from __future__ import annotations

import json
import re
import shutil
import statistics
import time
from pathlib import Path

from bench.streamlit_server import fairval_serve, streamlit_run
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db

LABELS = ("Strongly agree", "Somewhat agree")      # clicked in turn, so every click changes the choice
OLD_PAGE = '''
import streamlit as st

LIKERT = ["Strongly disagree", "Somewhat disagree", "Neither agree nor disagree", "Somewhat agree",
          "Strongly agree"]
item = st.session_state.setdefault("item", 0)
st.progress(item / 1000, text=f"{item} of 1000 done")
st.text(f"Question {item}: should the bank approve the loan?")
for q, keys in (("quality", "12345"), ("yes_positive", "asdfg")):
    state = f"answer:{item}:{q}"
    st.markdown(f"**{q}**")
    cols = st.columns(5)
    for i, label in enumerate(LIKERT):
        cols[i].button(label, key=f"{state}:{i}", shortcut=keys[i].upper(), width="stretch",
                       type="primary" if st.session_state.get(state) == label else "secondary",
                       on_click=lambda s=state, v=label: st.session_state.update({s: v}))
if st.button("Submit", type="primary", key=f"submit:{item}"):
    st.session_state["item"] = item + 1
    st.rerun()
'''


def _study(folder: Path) -> Path:
    db_path = folder / "choice.db"
    db = open_db(db_path)
    create_study(db, "choice", "template_quality", raters_per_item=1, seed=1)
    rows = [{"id": f"q{k}", "filled_template": f"Question {k}: should the bank approve the loan?"}
            for k in range(200)]
    path = folder / "choice.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_items(db, "choice", path)
    db.close()
    return db_path


def _timed(action, done) -> float:
    start = time.perf_counter()
    action()
    done()
    return time.perf_counter() - start


def _new(browser, url: str, clicks: int, items: int) -> tuple[list[float], list[float]]:
    from playwright.sync_api import expect
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{url}/?study=choice&rater=bench")
    page.get_by_role("button", name="I agree to take part").click()
    page.get_by_role("button", name="Start").click()
    page.locator(".fv-option").first.wait_for(timeout=60_000)
    choose = []
    for k in range(clicks):
        button = page.get_by_role("button", name=LABELS[k % 2], exact=True).first
        choose.append(_timed(button.click, lambda b=button: expect(b).to_have_attribute(
            "aria-pressed", "true", timeout=60_000)))
    whole = []
    for _ in range(items):
        progress = page.get_by_test_id("stProgress").inner_text()

        def answer():
            page.get_by_role("button", name="Strongly agree", exact=True).nth(0).click()
            page.get_by_role("button", name="Somewhat agree", exact=True).nth(1).click()
            page.get_by_role("button", name="Submit").click()
        whole.append(_timed(answer, lambda p=progress: expect(page.get_by_test_id("stProgress")).not_to_have_text(
            p, timeout=60_000)))
    page.close()
    return choose, whole


def _old(browser, url: str, clicks: int, items: int) -> tuple[list[float], list[float]]:
    from playwright.sync_api import expect
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(url)
    page.get_by_role("button", name="Submit").wait_for(timeout=60_000)

    def option(label: str):               # a shortcut's key is part of the button's name
        return page.get_by_role("button", name=re.compile(rf"^{re.escape(label)}"))

    def chosen(label: str, nth: int = 0):
        return page.get_by_test_id("stBaseButton-primary").filter(has_text=label).nth(nth)
    choose = []
    for k in range(clicks):
        label = LABELS[k % 2]
        choose.append(_timed(option(label).first.click,
                             lambda lab=label: chosen(lab).wait_for(timeout=60_000)))
    whole = []
    for _ in range(items):
        progress = page.get_by_test_id("stProgress").inner_text()

        def answer():
            option("Strongly agree").nth(0).click()
            chosen("Strongly agree").wait_for(timeout=60_000)     # a rater waits to see the choice taken
            option("Somewhat agree").nth(1).click()
            chosen("Somewhat agree").wait_for(timeout=60_000)
            page.get_by_role("button", name="Submit").click()
        whole.append(_timed(answer, lambda p=progress: expect(page.get_by_test_id("stProgress")).not_to_have_text(
            p, timeout=60_000)))
    page.close()
    return choose, whole


def _p50(xs: list[float]) -> float:
    return statistics.median(xs) * 1000


def run(folder: Path, quick: bool = False) -> list[str]:
    from playwright.sync_api import sync_playwright
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        raise SystemExit("the choice benchmark needs Debian's chromium (make test installs it)")
    clicks, items = (6, 3) if quick else (40, 15)
    old_script = folder / "old_choice.py"
    old_script.write_text(OLD_PAGE)
    with sync_playwright() as p, fairval_serve(_study(folder)) as new_server, streamlit_run(old_script) as old_server:
        browser = p.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"])
        new_choose, new_item = _new(browser, new_server.url, clicks, items)
        old_choose, old_item = _old(browser, old_server.url, clicks, items)
        browser.close()
    return [f"choose an option, click to seen chosen: answer card p50 {_p50(new_choose):.0f} ms, "
            f"button per option p50 {_p50(old_choose):.0f} ms ({_p50(old_choose) / _p50(new_choose):.1f}x faster)",
            f"a whole item (two choices, Submit, next item shown): answer card p50 {_p50(new_item):.0f} ms, "
            f"button per option p50 {_p50(old_item):.0f} ms ({_p50(old_item) / _p50(new_item):.2f}x)"]
