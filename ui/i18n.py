"""The rater's way in the study's language: every word fairval itself shows a rater comes from a gettext
catalogue, ui/locale/<language>/LC_MESSAGES/fairval.po, read with Babel. The .po files are the source a
lab's translator corrects (no compile step: they are read as they are). A message missing from a
catalogue, or not yet translated there, is shown in English; tests/ui/test_i18n.py checks that none is.

Messages are Python brace formats: t("{done} of {total} done", done=3, total=12). Where one English
word has two uses (a name's perceived gender, the rater's own), t.pgettext(context, word) looks up the
catalogue's msgctxt entry, so each use has its own translation. A message kept in a constant is marked
N_("...") where it is written. `pybabel extract -k t -k N_ -k pgettext:1c,2` finds them all, and
tests/ui/test_i18n.py checks each is translated in every catalogue. ui/locale/glossary.json holds each
language's fixed terms (stereotype, response, option, the scale); the same tests check the catalogues
use them.
"""
from __future__ import annotations

import functools
from importlib import resources

from fairval.annotate.material.languages import DEFAULT, LANGUAGES, direction, supported  # noqa: F401


def catalogue_path(language: str):
    return resources.files("fairval.ui") / "locale" / language.replace("-", "_") / "LC_MESSAGES" / "fairval.po"


CONTEXT = "\x04"            # gettext's separator of msgctxt and msgid in one key


@functools.cache
def catalogue(language: str) -> dict[str, str]:
    """msgid -> msgstr of a shipped language's catalogue (the translated ones only); an entry with a
    msgctxt is keyed context + CONTEXT + msgid."""
    if language == DEFAULT:
        return {}
    from babel.messages.pofile import read_po

    with catalogue_path(language).open("rb") as f:
        read = read_po(f, locale=language.replace("-", "_"))
    return {(m.context + CONTEXT if m.context else "") + m.id: m.string for m in read
            if m.id and isinstance(m.id, str) and m.string and isinstance(m.string, str) and not m.fuzzy}


class Translate:
    """t(message, **fields): the message in `language` (English when it has no translation), formatted;
    t.pgettext(context, message, **fields) the same for a message with a msgctxt."""

    def __init__(self, language: str | None):
        self.language = supported(language or DEFAULT) or DEFAULT
        self._table = catalogue(self.language)

    def __call__(self, message: str, **fields) -> str:
        text = self._table.get(message, message)
        return text.format(**fields) if fields else text

    def pgettext(self, context: str, message: str, **fields) -> str:
        text = self._table.get(context + CONTEXT + message, message)
        return text.format(**fields) if fields else text

    def list(self, words: list[str]) -> str:
        """Words as the language lists them ("A, B, and C"; German "A, B und C"; Japanese "A、B、C"): CLDR's
        patterns, through Babel."""
        from babel.lists import format_list
        return format_list(words, locale=self.language.replace("-", "_"))


def N_(message: str) -> str:
    """Marks a message kept in a constant and translated where it is shown (so extraction finds it)."""
    return message


def translator(language: str | None) -> Translate:
    return Translate(language)


english = translator(DEFAULT)          # fairval's own words as written
