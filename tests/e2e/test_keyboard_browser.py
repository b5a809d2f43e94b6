"""A keyboard-only rater in a real Chromium: a focused answer is chosen by Enter or Space (not the answer an
earlier key chose submitted), the Instructions expander opens on Enter, Submit submits on Enter, option keys
follow the physical key on any layout, a key pressed while saving is refused in words, and a new item puts
the focus on its first question. Every stored answer is the last one chosen."""
import pytest
from playwright.sync_api import expect

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from fairval.store import ratings as rating_store
from tests.conftest import write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import serve_studies, wait_text

pytestmark = pytest.mark.e2e


def _study(db, folder):
    create_study(db, "nm", "name_perception", raters_per_item=1, seed=2)
    import_items(db, "nm", write_jsonl(folder / "names.jsonl", [
        {"id": f"n{k}", "name": f"Name{k}", "race": "white", "gender": "female"} for k in range(3)]))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-keyboard", _study)


def focused_text(page) -> str:
    """The text of the element that has the focus, looking into the card's shadow root."""
    return page.evaluate("""() => { let a = document.activeElement;
        while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
        return a ? (a.innerText || a.textContent || "").trim() : ""; }""")


def tab_to(page, text: str, limit: int = 40) -> None:
    for _ in range(limit):
        page.keyboard.press("Tab")
        if focused_text(page).endswith(text):
            return
    raise AssertionError(f"Tab never reached {text!r}")


def stored(server, item: str) -> dict:
    db = open_db(server.db_path)
    try:
        return rating_store.answers_of(db, "nm", item, "keys")
    finally:
        db.close()


def item_id(page) -> str:
    return "n" + bot.item_text(page).removeprefix("Name")


def test_a_keyboard_only_rater(server, browser):
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    bot.open_link(page, f"{server.url}/?study=nm&rater=keys")
    bot.consent(page)
    bot.start(page)
    wait_text(page, "0 of 3 done")
    first = item_id(page)
    page.locator(".fv-option").first.wait_for()
    expect(page.locator(".fv-prompt").first).to_be_focused()          # focus on the new item's first question

    # 1: white; a: male. Then Tab to "3 Asian" and press Enter: Asian is chosen, nothing is submitted.
    page.keyboard.press("1")
    page.keyboard.press("a")
    tab_to(page, "Asian")
    page.keyboard.press("Enter")
    expect(bot.option(page, "Asian")).to_have_attribute("aria-pressed", "true")
    expect(bot.option(page, "white")).to_have_attribute("aria-pressed", "false")
    # Space on a focused answer chooses it too
    tab_to(page, "female")
    page.keyboard.press(" ")
    expect(bot.option(page, "female")).to_have_attribute("aria-pressed", "true")
    assert stored(server, first) == {}
    # Enter on the Instructions expander opens it and submits nothing
    page.locator("[data-testid=\"stExpander\"] summary").first.focus()
    page.keyboard.press("Enter")
    wait_text(page, "what most people would assume")
    assert stored(server, first) == {}
    # Enter on Submit submits: the answers last chosen
    tab_to(page, "Submit")
    page.keyboard.press("Enter")
    wait_text(page, "1 of 3 done")
    wait_text(page, "Answer saved")
    assert stored(server, first) == {"race": "Asian", "gender": "female"}

    # an AZERTY keyboard: the key that types "é" is where "2" is; the one that types "q" is where "a" is.
    # First the new item's card, listening (the card just sent refuses keys while it waits for the next),
    # with the focus on its first question, off the Submit just pressed.
    bot.card_ready(page)
    second = item_id(page)
    expect(page.locator(".fv-prompt").first).to_be_focused(timeout=20_000)
    for key, code in (("é", "Digit2"), ("q", "KeyA")):
        page.evaluate("([key, code]) => document.body.dispatchEvent(new KeyboardEvent('keydown', "
                      "{key, code, bubbles: true, composed: true}))", [key, code])
    expect(bot.option(page, "Black")).to_have_attribute("aria-pressed", "true")
    expect(bot.option(page, "male").first).to_have_attribute("aria-pressed", "true")
    page.locator(".fv-prompt").first.focus()                            # on no control: Enter submits
    page.keyboard.press("Enter")
    page.keyboard.press("3")                                            # as it is saved: changes nothing stored
    wait_text(page, "2 of 3 done")
    assert stored(server, second) == {"race": "Black", "gender": "male"}
