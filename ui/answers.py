"""Showing one item and taking its answers: option buttons with keyboard shortcuts, then Submit."""
from __future__ import annotations

import streamlit as st

from annotate.pairs import responses_as_shown
from annotate.session import Served
from annotate.tasks import SHORTCUT_ROWS, Task
from ui.common import literal_markdown


def show_item(task: Task, served: Served) -> None:
    """The item's material, always as plain text (imported text is never markup)."""
    data = served.data
    if task.display == "template":
        field = "filled_template" if "filled_template" in data else (task.required_fields or ("text",))[0]
        st.text(data.get(field, ""))
    elif task.display == "name":
        st.subheader("Name")
        st.text(data["name"])
        if data.get("filled_template"):
            st.caption("As it appears in a question:")
            st.text(data["filled_template"])
    elif task.display == "scenario":
        if data.get("category"):
            st.caption(f"Category: {data['category']}")
        st.text(data["scenario"])
    else:
        first, second = responses_as_shown(data, served.flipped)
        st.caption("User")
        st.text(data["prompt"])
        left, right = st.columns(2)
        with left.container(border=True):
            st.markdown("**Response 1**")
            st.text(first)
        with right.container(border=True):
            st.markdown("**Response 2**")
            st.text(second)


def _state_key(served: Served, qid: str) -> str:
    return f"answer:{served.item_id}:{qid}"


def choose_answers(task: Task, served: Served, *, prefix: str = "") -> dict[str, str]:
    """Option buttons per question; the chosen one is highlighted. Returns what is chosen so far."""
    chosen = {}
    for k, question in enumerate(task.questions):
        keys = SHORTCUT_ROWS[k] if k < len(SHORTCUT_ROWS) else ""
        prompt = question.prompt_for(served.data)
        st.markdown(f"**{literal_markdown(prompt)}**")
        state = prefix + _state_key(served, question.id)
        vertical = any(len(question.label_for(v, served.data)) > 40 for v in question.values)
        cols = [st.container()] * len(question.options) if vertical else st.columns(len(question.options))
        for i, option in enumerate(question.options):
            shortcut = keys[i].upper() if i < len(keys) else None
            label = literal_markdown(question.label_for(option.value, served.data))
            if question.canonical in ("harm", "feature"):
                label = f"{option.value}) {label}"
            cols[i].button(label, key=f"{state}:{option.value}", shortcut=shortcut,
                           type="primary" if st.session_state.get(state) == option.value else "secondary",
                           on_click=_pick, args=(state, option.value), width="stretch")
        if st.session_state.get(state) is not None:
            chosen[question.id] = st.session_state[state]
        if keys:
            st.caption(f"Keys {keys[0].upper()}–{keys[min(len(question.options), len(keys)) - 1].upper()}")
    return chosen


def forget_answers(task: Task, served: Served, *, prefix: str = "") -> None:
    for question in task.questions:
        st.session_state.pop(prefix + _state_key(served, question.id), None)


def _pick(state: str, value: str) -> None:
    st.session_state[state] = value
