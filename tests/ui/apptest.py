"""Helpers for driving the pages in-process with Streamlit's AppTest."""
from __future__ import annotations

import json
import re

import pandas as pd
from streamlit.proto.WidgetStates_pb2 import WidgetStates
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


def cards(at: AppTest) -> list:
    return [c for c in at.get("bidi_component") if c.proto.component_name.endswith("fairval_answer_card")]


def card(at: AppTest) -> dict:
    """What the answer card on screen shows (its data: item, questions with options and keys, …)."""
    found = cards(at)
    assert found, f"no answer card on screen; titles {titles(at)}"
    return json.loads(found[0].proto.json)


def current_item(at: AppTest) -> str:
    return card(at)["item"]


def submit(at: AppTest, answers: dict[str, str], *, comment: str | None = None, item: str | None = None) -> AppTest:
    """What the card sends when the rater presses Submit (its trigger), as the browser would send it.
    AppTest has no handle on custom components, so the widget state goes in through its run."""
    component = cards(at)[0].proto
    states = at._tree.get_widget_states()
    trigger = WidgetStates().widgets.add()
    trigger.id = f"$$STREAMLIT_INTERNAL_KEY_{component.id}__events"
    payload = {"item": item or json.loads(component.json)["item"], "answers": answers, "comment": comment}
    trigger.json_trigger_value = json.dumps([{"event": "submit", "value": payload}])
    states.widgets.append(trigger)
    return at._run(states)


_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~:$&])")


def plain(text: str) -> str:
    """What a reader sees of Markdown the pages escaped (participant text is shown as typed)."""
    return _ESCAPED.sub(r"\1", str(text))


def shown(table) -> pd.DataFrame:
    """A researcher page's table (st.dataframe: cells drawn as plain text) as the reader sees it."""
    return table.value


def table_with(at, column: str) -> pd.DataFrame:
    """The first table on the page that has this column."""
    found = [shown(t) for t in at.dataframe if column in t.value.columns]
    assert found, f"no table with a {column!r} column; tables: {[list(t.value.columns) for t in at.dataframe]}"
    return found[0]


def signed_in(name: str, monkeypatch, password: str = "s3cret") -> AppTest:
    """A researcher page after signing in with the shared password (set here in the environment)."""
    monkeypatch.setenv("FAIRVAL_RESEARCHER_PASSWORD", password)
    at = page(name)
    at.text_input[0].input(password)
    at.button[0].click().run()
    assert not at.exception, at.exception
    return at
