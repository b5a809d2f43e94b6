"""A researcher in a real browser: signs in, creates a study, uploads items (a bad file is refused
whole with its line named), and the study is ready for raters."""
import pytest
from playwright.sync_api import expect

from fairval.annotate.material.studies import create_study
from fairval.store import items as item_store
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import PASSWORD, Server, wait_text

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e-manage")
    db = open_db(folder / "fairval.db")
    create_study(db, "existing", "template_quality")
    db.close()
    s = Server(folder / "fairval.db")
    yield s
    s.stop()


def upload(page, path) -> None:
    """Choose the file, wait until the uploader lists it (the upload has reached the server), import."""
    page.locator("input[type=file]").set_input_files(str(path))
    page.get_by_test_id("stFileChipName").filter(has_text=path.name).wait_for(timeout=20_000)
    expect(page.get_by_test_id("stFileChipIconSpinner")).to_have_count(0, timeout=20_000)
    bot.settle(page)
    page.get_by_role("button", name="Import", exact=True).click()


def test_create_upload_and_serve(server, browser, tmp_path):
    page = browser.new_page()
    page.goto(server.url + "/Manage")
    page.get_by_role("textbox", name="Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    wait_text(page, "Manage studies")
    page.get_by_role("textbox", name="Name").fill("names-1")
    # by its label: the first selectbox on the page may be a hidden tab's (CI once waited 30 s on one)
    page.get_by_role("combobox", name="Task").click()
    page.get_by_role("option", name="name_perception").click()
    page.get_by_role("button", name="Create study").click()
    wait_text(page, "Created study 'names-1'")

    # The message shows while the rerun is still drawing: the previous run's tabs can still be on the
    # page beside the new ones (CI saw two "Import" tabs), so wait for the one tab of the finished run.
    bot.settle(page)
    import_tab = page.get_by_role("tab", name="Import")
    expect(import_tab).to_have_count(1, timeout=20_000)
    import_tab.click()
    expect(import_tab).to_have_attribute("aria-selected", "true")
    # the open tab's own picker: every tab's panel is in the page, the closed ones hidden
    picker = page.get_by_role("tabpanel", name="Import").get_by_role("combobox", name="Study")
    expect(picker).to_have_count(1)
    picker.click()
    page.get_by_role("option", name="names-1").click()
    bad = tmp_path / "names-bad.csv"
    bad.write_text("id,name,race,gender\na,Ana Diaz,Hispanic,female\nb,,white,male\n", encoding="utf-8")
    upload(page, bad)
    wait_text(page, "names-bad.csv, line 3, field 'name'")
    db = open_db(server.db_path)
    assert item_store.list_items(db, "names-1") == []

    good = write_jsonl(tmp_path / "names.jsonl", [{"id": "a", "name": "Ana Diaz", "race": "Hispanic",
                                                  "gender": "female"}])
    upload(page, good)
    wait_text(page, "Imported 1 row into 'names-1'.")
    assert [i["item_id"] for i in item_store.list_items(db, "names-1")] == ["a"]
    page.close()

    rater = browser.new_page()
    bot.open_link(rater, f"{server.url}/?study=names-1&rater=in-house-7")
    bot.consent(rater)
    bot.start(rater)
    assert bot.item_text(rater) == "Ana Diaz"
    bot.choose(rater, "Hispanic")
    bot.choose(rater, "female")
    rater.get_by_role("button", name="Submit").click()
    wait_text(rater, "you have finished")
    assert dict(db.execute("SELECT question, value FROM ratings WHERE rater_id = 'in-house-7'")) == \
        {"race": "Hispanic", "gender": "female"}
    rater.close()


def test_a_refused_group_is_mapped_on_the_page_as_the_refusal_suggests(server, browser, tmp_path):
    """whats-in-a-name's layout with a group that splits no way: the page refuses it naming the map to give
    (the command's --map), and the page's own map box takes it, so no command line is needed."""
    db = open_db(server.db_path)
    create_study(db, "names-map", "name_perception")
    rows = tmp_path / "prompts.csv"
    rows.write_text("scenario,variation,name_group,name,context_level,prompt_text\n"
                    "purchase,kayak,white_men,Colin Brennan,low,I want to buy a kayak from Colin Brennan.\n"
                    "purchase,kayak,black,Kofi Mensah,low,I want to buy a kayak from Kofi Mensah.\n", encoding="utf-8")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(server.url + "/Manage")
    page.get_by_role("textbox", name="Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    wait_text(page, "Manage studies")
    bot.settle(page)
    page.get_by_role("tab", name="Import").click()
    panel = page.get_by_role("tabpanel", name="Import")
    panel.get_by_role("combobox", name="Study").click()
    page.get_by_role("option", name="names-map", exact=True).click()
    upload(page, rows)
    wait_text(page, "prompts.csv, line 3, field 'name_group': group 'black' does not split")
    wait_text(page, "give --map black=Black+GENDER or the columns race and gender")
    assert item_store.list_items(db, "names-map") == []

    box = panel.get_by_role("textbox", name="Labels to map (--map), one a line")
    box.fill("black=Black+female")
    box.press("Control+Enter")          # a text area's value reaches the server on this key or on leaving it
    bot.settle(page)
    page.get_by_role("button", name="Import", exact=True).click()
    wait_text(page, "Imported 2 rows into 'names-map'.")
    wait_text(page, "name_group 'black' → race 'Black' + gender 'female'")
    stored = {i["data"]["name"]: (i["data"]["race"], i["data"]["gender"])
              for i in item_store.list_items(db, "names-map")}
    assert stored == {"Colin Brennan": ("white", "male"), "Kofi Mensah": ("Black", "female")}
    page.screenshot(path=str(tmp_path / "mapped.png"), full_page=True)
    page.close()
