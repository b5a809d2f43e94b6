"""The page's language and direction (<html lang dir>) for a screen reader, hyphenation and right-to-left
layout: a custom component (v2: its script runs in the page itself, nothing is drawn) that sets them on
the document from the study's language.

Streamlit ships its own few words in English only: the skip link, the status line while the page runs or
reconnects, the copy button of a code, a button's shortcut and a progress bar's label for a screen reader.
The same script puts the study's language in their place, as they appear (text, aria-label, title)."""
from __future__ import annotations

import json
from collections.abc import Callable

import streamlit as st

# Streamlit's words a rater can meet, seen or read out (found in its frontend bundle); catalogued like
# fairval's own (ui/locale), so tests/ui/test_i18n.py checks each has a translation.
STREAMLIT_WORDS = ("Skip to main content", "Copy to clipboard", "Shortcut Enter", "progress", "Running...",
                   "Stop", "Connecting", "Please wait...", "Connection error")

_JS = """
export default function ({ data }) {
  const html = document.documentElement;
  if (html.lang !== data.lang) html.lang = data.lang;
  if (html.dir !== data.dir) html.dir = data.dir;
  window.__fairvalWords = JSON.parse(data.words || "{}");
  window.__fairvalNames = JSON.parse(data.names || "{}");
  if (window.__fairvalWordsObserver) return;
  const ATTRIBUTES = ["aria-label", "title", "placeholder"];
  function put(node) {
    const words = window.__fairvalWords;
    if (node.nodeType === Node.TEXT_NODE) {
      const said = node.textContent.trim();
      if (said && words[said]) node.textContent = node.textContent.replace(said, words[said]);
      // a language's name in its own script (the consent screen's picker) is read out in that language
      const named = window.__fairvalNames[said];
      if (named && node.parentElement && node.parentElement.lang !== named) node.parentElement.lang = named;
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    for (const name of ATTRIBUTES) {
      const value = node.getAttribute(name);
      if (value && words[value]) node.setAttribute(name, words[value]);
    }
    for (const child of node.childNodes) put(child);
  }
  const observer = new MutationObserver((changes) => {
    for (const change of changes) {
      if (change.type === "childList") change.addedNodes.forEach(put);
      else put(change.target);
    }
  });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true,
                                    attributes: true, attributeFilter: ATTRIBUTES });
  window.__fairvalWordsObserver = observer;
  put(document.body);
}
"""

_component = st.components.v2.component("fairval_page_language", html="<span hidden></span>", js=_JS)


def page_language(language: str, direction: str, t: Callable[[str], str], names: dict[str, str] | None = None) -> None:
    """`names`: a language's name in its own script -> its code, for the texts that name one (a picker)."""
    words = {word: t(word) for word in STREAMLIT_WORDS if t(word) != word}
    # the words as one JSON string: every value of `data` is then a plain one, which Streamlit sends as it
    # is, where a dict is first tested against each dataframe type it knows, on every rerun
    _component(data={"lang": language, "dir": direction, "words": json.dumps(words),
                     "names": json.dumps(names or {}, ensure_ascii=False)}, key="fairval-page-language")
