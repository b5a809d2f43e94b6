"""A rater's presses and Submits rerun only the rater's steps, not the whole page (issue 58), in Debian's
Chromium: after the link's first run, every rerun the browser asks for names the fragment the rater's steps
are drawn in, and the server answers each with a run of that fragment alone, so Streamlit's pages/ routing,
the link's checks and the page's language component are run and sent once per visit, not at every press.
The rater still walks from consent to the end page, every answer stored once."""
from __future__ import annotations

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import serve_studies, wait_text

pytestmark = pytest.mark.e2e

ITEMS = ["Should the bank approve the loan for the bakery.", "Should the hospital offer the nurse the day shift.",
         "Should the landlord renew the tenant's lease."]


def _studies(db, folder):
    create_study(db, "steps", "template_quality", raters_per_item=1, max_items_per_rater=3, seed=3,
                 completion_code="STEPS-DONE")
    import_items(db, "steps", write_jsonl(folder / "items.jsonl",
                                          [{"id": f"q{k}", "filled_template": t} for k, t in enumerate(ITEMS)]))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-rater-fragment", _studies)


def test_presses_and_submits_rerun_only_the_raters_steps(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    sent: list[BackMsg] = []
    received: list[ForwardMsg] = []

    def watch(ws) -> None:
        ws.on("framesent", lambda payload: sent.append(BackMsg.FromString(payload))
              if isinstance(payload, bytes) else None)
        ws.on("framereceived", lambda payload: received.append(ForwardMsg.FromString(payload))
              if isinstance(payload, bytes) else None)
    page.on("websocket", watch)
    bot.open_link(page, f"{server.url}/?study=steps&rater=walker")
    bot.consent(page)
    bot.start(page)
    for _ in ITEMS:
        before = bot.item_text(page)
        bot.answer_template(page, "Somewhat agree", "Strongly agree")
        page.wait_for_function("t => !document.body.innerText.includes(t)", arg=before, timeout=30_000)
    wait_text(page, "Thank you, you have finished")
    wait_text(page, "STEPS-DONE")
    context.close()

    reruns = [m.rerun_script for m in sent if m.WhichOneof("type") == "rerun_script"]
    assert len(reruns) == 1 + 2 + len(ITEMS)                 # the link; consent and Start; each Submit
    assert reruns[0].fragment_id == ""                       # the link's first run draws the whole page
    fragments = {r.fragment_id for r in reruns[1:]}
    assert len(fragments) == 1 and "" not in fragments       # every press and Submit names the rater's steps
    finished = [m.script_finished for m in received if m.WhichOneof("type") == "script_finished"]
    assert finished == [ForwardMsg.FINISHED_SUCCESSFULLY] + [ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY] * 5
    components = [m.delta.new_element.bidi_component.component_name for m in received
                  if m.WhichOneof("type") == "delta" and m.delta.new_element.WhichOneof("type") == "bidi_component"]
    assert sum(name.endswith("fairval_page_language") for name in components) == 1      # sent once a visit
    assert sum(name.endswith("fairval_answer_card") for name in components) == len(ITEMS)

    db = open_db(server.db_path)
    try:
        stored = db.query("SELECT item_id, COUNT(*) AS n FROM ratings WHERE study_id = 'steps' GROUP BY item_id")
    finally:
        db.close()
    assert sorted(r["item_id"] for r in stored) == ["q0", "q1", "q2"] and {r["n"] for r in stored} == {2}
