"""Showing one item to a rater. Every imported field is plain text (st.text), never Markdown or HTML:
an import file must not be able to put a link, an image (a tracking pixel) or styling on a rater's
screen. The one exception is a chatbot's response, drawn as a chat window draws it (paragraphs, lists,
emphasis, code), through markdown-it with raw HTML, images and links switched off.
Answers are taken by the answer card (ui/answer_card.py)."""
from __future__ import annotations

import functools
import html

import streamlit as st

from fairval.annotate.material.layouts import readable_slots, scenario_category
from fairval.annotate.material.pairs import responses_as_shown
from fairval.annotate.material.tasks import Task
from fairval.annotate.rating.session import Served
from fairval.ui.i18n import Translate, english


def show_item(task: Task, served: Served, t: Translate = english) -> None:
    data = served.data
    if task.display == "template":
        field = "filled_template" if "filled_template" in data else (task.required_fields or ("text",))[0]
        st.text(str(data.get(field, "")))
    elif task.display == "name":
        st.subheader(t("Name"), anchor=False)
        st.text(str(data["name"]))
        if data.get("filled_template"):
            st.caption(t("As it appears in a question:"))
            st.text(str(data["filled_template"]))
    elif task.display == "scenario":
        if category := scenario_category(data):
            st.text(t("Category: {category}", category=category))
        text, slotted = readable_slots(str(data["scenario"]))
        st.text(text)
        if slotted:
            st.caption(t("Words in square brackets stand for words filled in when the prompt is used, such as the "
                         "groups it compares."))
    else:
        first, second = responses_as_shown(data, served.flipped)
        st.caption(t("User"))
        st.text(str(data["prompt"]))
        left, right = st.columns(2)
        with left.container(border=True):
            st.markdown(f"**{t('Response 1')}**")
            st.html(response_html(first, t))
        with right.container(border=True):
            st.markdown(f"**{t('Response 2')}**")
            st.html(response_html(second, t))


@functools.cache
def _chat_markdown():
    from markdown_it import MarkdownIt

    # CommonMark without anything that reaches outside the page or carries markup of its own: raw HTML
    # is shown as the text it is, and image, link and reference syntax stay as typed (nothing to fetch
    # or follow). A bare address is never turned into a link (linkify off).
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).disable(
        ["image", "link", "autolink", "html_inline", "html_block", "reference"])


def response_html(text: str, t: Translate = english) -> str:
    """A chatbot response as a chat window shows it: paragraphs, lists, emphasis and code; nothing else."""
    empty = html.escape(t("(an empty response)"))
    rendered = _chat_markdown().render(str(text)).strip() or f"<p><em>{empty}</em></p>"
    return f'<div class="fv-response">{rendered}</div>'
