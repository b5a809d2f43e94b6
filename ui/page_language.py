"""The page's language and direction (<html lang dir>) for a screen reader, hyphenation and right-to-left
layout: a custom component (v2: its script runs in the page itself, nothing is drawn) that sets them on
the document from the study's language."""
from __future__ import annotations

import streamlit as st

_JS = """
export default function ({ data }) {
  const html = document.documentElement;
  if (html.lang !== data.lang) html.lang = data.lang;
  if (html.dir !== data.dir) html.dir = data.dir;
}
"""

_component = st.components.v2.component("fairval_page_language", html="<span hidden></span>", js=_JS)


def page_language(language: str, direction: str) -> None:
    _component(data={"lang": language, "dir": direction}, key="fairval-page-language")
