"""Helpers for driving the pages in-process with Streamlit's AppTest."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT


def rater_app(**params) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    for k, v in params.items():
        at.query_params[k] = v
    return at.run()


def page(name: str) -> AppTest:
    """A researcher page, reached the way Streamlit routes it: from the entry point."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    return at.switch_page(f"pages/{name}").run()


def titles(at: AppTest) -> list[str]:
    return [t.value for t in at.title]


def pick(at: AppTest, item_id: str, answers: dict[str, str]) -> AppTest:
    for qid, value in answers.items():
        at.button(key=f"answer:{item_id}:{qid}:{value}").click().run()
    return at


def current_item(at: AppTest) -> str:
    keys = [b.key for b in at.button if b.key and b.key.startswith("submit:")]
    assert keys, f"no item on screen; titles {titles(at)}"
    return keys[0].removeprefix("submit:")
