"""Showing one item to a rater. Every imported field is plain text (st.text), never Markdown or HTML:
an import file must not be able to put a link, an image (a tracking pixel) or styling on a rater's
screen. Answers are taken by the answer card (ui/answer_card.py)."""
from __future__ import annotations

import streamlit as st

from annotate.pairs import responses_as_shown
from annotate.session import Served
from annotate.tasks import Task


def show_item(task: Task, served: Served) -> None:
    data = served.data
    if task.display == "template":
        field = "filled_template" if "filled_template" in data else (task.required_fields or ("text",))[0]
        st.text(str(data.get(field, "")))
    elif task.display == "name":
        st.subheader("Name")
        st.text(str(data["name"]))
        if data.get("filled_template"):
            st.caption("As it appears in a question:")
            st.text(str(data["filled_template"]))
    elif task.display == "scenario":
        if data.get("category"):
            st.text(f"Category: {data['category']}")
        st.text(str(data["scenario"]))
    else:
        first, second = responses_as_shown(data, served.flipped)
        st.caption("User")
        st.text(str(data["prompt"]))
        left, right = st.columns(2)
        with left.container(border=True):
            st.markdown("**Response 1**")
            st.text(first)
        with right.container(border=True):
            st.markdown("**Response 2**")
            st.text(second)
