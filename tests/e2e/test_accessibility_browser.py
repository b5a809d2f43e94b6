"""WCAG 2.1 AA by axe-core (axe-playwright-python bundles it): 0 violations of the wcag2a, wcag2aa, wcag21a and
wcag21aa rules on every rater screen (consent, about you, instructions, practice and its feedback, item,
completion, paused, closed, declined, and screened out with Prolific's code) and every researcher page, the
answer card's shadow root included (axe-core walks open shadow roots), at desktop and phone sizes."""
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from fairval.annotate.material.demo import ensure_demo
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import configure_study, create_study
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import PASSWORD, Server, charts_drawn, wait_text

pytestmark = pytest.mark.e2e

RULES = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
         "resultTypes": ["violations"]}
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 375, "height": 812}}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e-axe")
    db = open_db(folder / "fairval.db")
    ensure_demo(db)
    create_study(db, "tq", "template_quality", raters_per_item=2, completion_code="AXE-CODE", seed=3,
                 demographics=["gender", "race", "country"])
    import_items(db, "tq", write_jsonl(folder / "items.jsonl", [
        {"id": "practice", "filled_template": "A practice question?", "_practice": True,
         "_gold": {"quality": "5", "yes_positive": "5"}},
        {"id": "q0", "filled_template": "Should the bank approve the loan?"}]))
    for name, status in (("paused", "paused"), ("closed", "closed")):
        create_study(db, name, "template_quality", raters_per_item=1)
        import_items(db, name, write_jsonl(folder / f"{name}.jsonl", [{"id": "x", "filled_template": "Q?"}]))
        configure_study(db, name, status=status)
    for size in SIZES:
        create_study(db, f"bal-{size}", "template_quality", raters_per_item=2, balance_by="gender",
                     balance_groups=["female", "male"], screen_out_code="AXE-FULL", seed=3)
        import_items(db, f"bal-{size}", write_jsonl(folder / "bal.jsonl", [{"id": "only", "filled_template": "Q?"}]))
    db.close()
    s = Server(folder / "fairval.db")
    yield s
    s.stop()


def violations(page) -> list[str]:
    # the run over (axe on a page Streamlit is still redrawing checks half of it) and every chart drawn: a chart
    # still being laid out on a loaded phone once overflowed its frame, a "scrollable region" for that moment
    charts_drawn(page, some=False)
    found = Axe().run(page, options=RULES).response["violations"]
    return [f"{v['id']}: {v['help']} — {[n['target'] for n in v['nodes']][:3]} ({len(v['nodes'])} nodes)" for v in found]


@pytest.mark.parametrize("size", SIZES)
def test_every_rater_screen(server, browser, size):
    page = browser.new_context(viewport=SIZES[size]).new_page()
    found = {}
    bot.open_link(page, f"{server.url}/?study=tq&rater=axe-{size}")
    found["consent"] = violations(page)
    bot.consent(page)
    found["about you"] = violations(page)
    bot.background(page, "Gender", "female")
    bot.background(page, "Race / ethnicity", "Asian")
    page.get_by_text("Prefer not to say").last.click()
    # the form sends only what it shows chosen: a click lost on a busy phone page says so here, not as a missing Start
    expect(page.get_by_role("checkbox", name="Prefer not to say")).to_be_checked()
    expect(page.get_by_role("radiogroup", name="Gender").get_by_role("radio", name="Female")).to_be_checked()
    page.get_by_role("button", name="Continue").click()
    # the Submit's rerun stores consent's answers and serves the start: under CI's two browser processes and
    # axe's scans on two cores it has taken more than 20 s
    page.get_by_role("button", name="Start").wait_for(timeout=60_000)
    found["instructions"] = violations(page)
    bot.start(page)
    wait_text(page, "Practice 1 of 1")
    found["practice"] = violations(page)
    bot.answer_template(page, "Strongly agree", "Strongly agree", submit="Check my answer")
    wait_text(page, "expected answer")
    found["practice feedback"] = violations(page)
    page.get_by_role("button", name="Next").click()
    wait_text(page, "0 of 1 done")
    found["item"] = violations(page)
    bot.answer_template(page, "Somewhat agree", "Strongly agree")
    wait_text(page, "AXE-CODE")
    found["completion"] = violations(page)
    for study in ("paused", "closed"):
        page.goto(f"{server.url}/?study={study}&rater=axe-{size}")
        wait_text(page, f"This study is {study}")
        found[study] = violations(page)
    page.goto(f"{server.url}/?study=demo-pairs&rater=decliner-{size}")
    page.get_by_role("button", name="I do not agree").click()
    wait_text(page, "You chose not to take part")
    found["declined"] = violations(page)
    # screened out: the women's one place is taken, so the next woman from Prolific gets the screen-out code
    for pid in (f"w1-{size}", f"w2-{size}"):
        bot.open_link(page, f"{server.url}/?study=bal-{size}&PROLIFIC_PID={pid}&STUDY_ID=s&SESSION_ID=x-{pid}")
        bot.consent(page)
        if pid.startswith("w1"):
            bot.demographics(page, "female")
            bot.start(page)
            wait_text(page, "0 of 1 done")
            bot.answer_template(page, "Somewhat agree", "Strongly agree")
            wait_text(page, "Thank you")
    bot.background(page, "Gender", "female")
    page.get_by_role("button", name="Continue").click()
    wait_text(page, "AXE-FULL")
    found["screened out"] = violations(page)
    assert {screen: v for screen, v in found.items() if v} == {}


@pytest.mark.parametrize("size", SIZES)
def test_every_researcher_page(server, browser, size):
    page = browser.new_context(viewport=SIZES[size]).new_page()
    page.goto(f"{server.url}/Results")
    # the form drawn first: axe on a page still loading checks half of it (CI once saw its context replaced)
    expect(page.get_by_label("Password", exact=True)).to_be_visible(timeout=60_000)
    found = {"sign-in": violations(page)}
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    wait_text(page, "Items complete")
    found["Results"] = violations(page)
    for name, shown in (("Calibration", "Calibration"), ("Manage", "Manage studies"), ("Export", "Validated set")):
        page.goto(f"{server.url}/{name}?study=demo-pairs" if name != "Manage" else f"{server.url}/{name}")
        wait_text(page, shown)
        found[name] = violations(page)
    # Manage's Configure tab on a pair study: its settings and the design forms (adaptive, trust or escalate)
    page.goto(f"{server.url}/Manage?study=demo-pairs")
    wait_text(page, "Manage studies")
    page.get_by_role("tab", name="Configure").click()
    wait_text(page, "Trust or escalate")
    found["Manage, Configure"] = violations(page)
    for tab, shown in (("Import", "What the file holds"), ("Plan", "Plan the crowd study"),
                       ("Audit trail", "most recent entries")):
        page.get_by_role("tab", name=tab).click()
        wait_text(page, shown)
        found[f"Manage, {tab}"] = violations(page)
    assert {screen: v for screen, v in found.items() if v} == {}
