"""The rater's way in the study's language: every word fairval itself shows a rater comes from a gettext
catalogue, ui/locale/<language>/LC_MESSAGES/fairval.po, read with Babel. The .po files are the source a
lab's translator corrects (no compile step: they are read as they are). A message missing from a
catalogue, or not yet translated there, is shown in English; tests/ui/test_i18n.py checks that none is.

Messages are Python brace formats: t("{done} of {total} done", done=3, total=12).
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import resources

from fairval.annotate.material.languages import DEFAULT, LANGUAGES, direction, supported  # noqa: F401


def catalogue_path(language: str):
    return resources.files("fairval.ui") / "locale" / language.replace("-", "_") / "LC_MESSAGES" / "fairval.po"


@functools.cache
def catalogue(language: str) -> dict[str, str]:
    """msgid -> msgstr of a shipped language's catalogue (the translated ones only)."""
    if language == DEFAULT:
        return {}
    from babel.messages.pofile import read_po

    with catalogue_path(language).open("rb") as f:
        read = read_po(f, locale=language.replace("-", "_"))
    return {m.id: m.string for m in read if m.id and isinstance(m.id, str) and m.string and not m.fuzzy}


Translate = Callable[..., str]


def translator(language: str | None) -> Translate:
    """t(message, **fields): the message in `language` (English when it has no translation), formatted."""
    table = catalogue(supported(language or DEFAULT) or DEFAULT)

    def t(message: str, **fields) -> str:
        text = table.get(message, message)
        return text.format(**fields) if fields else text
    return t


english = translator(DEFAULT)          # fairval's own words as written
