"""The rater's own background answers: what is offered in each language, what is stored.

A race / ethnicity question is asked the way surveys in the rater's region ask it (Brazil's census asks
"cor ou raça" with branca, preta, parda, amarela, indígena; India and Kenya ask no US census list), but
what is stored is one common English value, so a group's numbers compare across languages: pt-BR's
"parda" is stored "mixed", hi's "एशियाई (भारतीय सहित)" "Asian". The words shown are the catalogues'
msgctxt "demographics" entries (ui/locale), apart from the same English words a name is perceived with.
"""
from __future__ import annotations

from fairval.store.raters import PREFER_NOT_TO_SAY

CONTEXT = "demographics"            # the catalogues' msgctxt for the rater's own answers
SELF_DESCRIBE = "prefer to self-describe"
MENA = "Middle Eastern or North African"

GENDERS = ["female", "male", "non-binary", SELF_DESCRIBE, PREFER_NOT_TO_SAY]
# every stored race value, in the order English offers them (the US's 2024 OMB categories, and mixed)
RACES = ["white", "Black", "Asian", "Hispanic", "Native American", MENA, "mixed", SELF_DESCRIBE, PREFER_NOT_TO_SAY]
_END = [SELF_DESCRIBE, PREFER_NOT_TO_SAY]

# What each language offers, in its region's usual order (a language not listed offers RACES).
RACES_BY_LANGUAGE: dict[str, list[str]] = {
    # IBGE's "cor ou raça": branca, preta, parda, amarela, indígena
    "pt-BR": ["white", "Black", "mixed", "Asian", "Native American", *_END],
    # Latin American censuses' self-identification (blanca, afrodescendiente, indígena, mestiza), and the
    # US's Hispanic / Latino for Spanish speakers there
    "es": ["white", "Black", "Native American", "mixed", "Asian", "Hispanic", MENA, *_END],
    "fr": ["white", "Black", MENA, "Asian", "mixed", "Hispanic", "Native American", *_END],
    "de": ["white", "Black", MENA, "Asian", "mixed", "Hispanic", "Native American", *_END],
    # India's surveys ask no race; the broad origins a rater there can place themselves in
    "hi": ["Asian", "white", "Black", MENA, "mixed", *_END],
    # Kenya's census asks the tribe (kabila), which would compare with nothing: broad origins instead
    "sw": ["Black", "Asian", "white", MENA, "mixed", *_END],
    "ar": [MENA, "Black", "white", "Asian", "mixed", *_END],
    "zh-Hans": ["Asian", "white", "Black", "Hispanic", MENA, "mixed", *_END],
    "ja": ["Asian", "white", "Black", "Hispanic", MENA, "mixed", *_END],
}


def races(language: str) -> list[str]:
    """The stored race values offered to a rater reading `language`, in the order shown."""
    return RACES_BY_LANGUAGE.get(language, RACES)
