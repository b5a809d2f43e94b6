"""The rater's own background answers: what is offered in each language, what is stored.

A race / ethnicity question is asked the way surveys in the rater's region ask it (Brazil's census asks
"cor ou raça" with branca, preta, parda, amarela, indígena; India and Kenya ask no US census list), but
what is stored is one common English value, so a group's numbers compare across languages: pt-BR's
"parda" is stored "mixed", hi's "एशियाई (भारतीय सहित)" "Asian". The words shown are the catalogues'
msgctxt "demographics" entries (ui/locale), apart from the same English words a name is perceived with.
"""
from __future__ import annotations

import streamlit as st

from fairval.annotate.material.studies import LoadedStudy
from fairval.annotate.material.vocabulary import RATER_ANSWERS
from fairval.annotate.rating import session
from fairval.errors import AnswerError
from fairval.store.raters import PREFER_NOT_TO_SAY
from fairval.ui.i18n import N_, Translate
from fairval.ui.into_view import error_into_view

CONTEXT = "demographics"            # the catalogues' msgctxt for the rater's own answers
SELF_DESCRIBE = "prefer to self-describe"
MENA = "Middle Eastern or North African"

# the values a balance group can name (vocabulary.RATER_ANSWERS), then the rater's own words or none
GENDERS = [*RATER_ANSWERS["gender"], SELF_DESCRIBE, PREFER_NOT_TO_SAY]
# every stored race value, in the order English offers them (the US's 2024 OMB categories, and mixed)
RACES = [*RATER_ANSWERS["race"], SELF_DESCRIBE, PREFER_NOT_TO_SAY]
_END = [SELF_DESCRIBE, PREFER_NOT_TO_SAY]

# the questions' labels, in the order asked, and the line naming those left unanswered
GENDER, RACE, COUNTRY = N_("Gender"), N_("Race / ethnicity"), N_("Country of residence")
QUESTIONS = {"gender": GENDER, "race": RACE, "country": COUNTRY}
QUOTED = N_("“{question}”")
UNANSWERED = N_("Answer {questions} to go on, or choose “Prefer not to say”.")

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


def answer_label(t: Translate, value: str) -> str:
    """An answer as offered: its words in the rater's language, first letter capital (sentence case), so
    "Prefer not to say" reads the same in the lists as on the country's box and in the error line."""
    shown = t.pgettext(CONTEXT, value)
    return shown[:1].upper() + shown[1:]


def demographics_form(db, study: LoadedStudy, rater_id: str, t: Translate) -> None:
    """The "About you" screen: the rater's own answers, shown translated and stored in English."""
    st.title(t("About you"), anchor=False)
    st.write(t("These questions help us check that people from different backgrounds are heard."))
    asks = study.settings.asks()
    with st.form("demographics", enter_to_submit=False):     # Enter in a list or the text box chooses, never submits
        answers = {}
        # radio buttons, not a list to open: every choice in view on a phone, read out whole by a screen
        # reader, chosen by arrow keys; shown translated, stored in English
        if "gender" in asks:
            answers["gender"] = st.radio(t(GENDER), GENDERS, index=None,
                                         format_func=lambda value: answer_label(t, value))
            # a form redraws nothing until it is sent, so the box is always there; read only with its choice
            described = st.text_input(t("If you prefer to self-describe: your gender, in your own words"),
                                      max_chars=60, key="gender-described")
            if answers["gender"] == SELF_DESCRIBE and described.strip():
                answers["gender"] = described.strip()
        if "race" in asks:
            answers["race"] = st.radio(t(RACE), races(t.language), index=None,
                                       format_func=lambda value: answer_label(t, value))
            described = st.text_input(t("If you prefer to self-describe: your race or ethnicity, in your own words"),
                                      max_chars=60, key="race-described")
            if answers["race"] == SELF_DESCRIBE and described.strip():
                answers["race"] = described.strip()
        if "country" in asks:
            answers["country"] = st.text_input(t(COUNTRY), key="country")
            if st.checkbox(t("Prefer not to say"), key="country-declined"):
                answers["country"] = PREFER_NOT_TO_SAY
        error = st.empty()        # the error goes just above Continue, the button that brought it
        refused = False
        if st.form_submit_button(t("Continue"), type="primary"):
            try:
                session.save_demographics(db, study, rater_id, {k: v or "" for k, v in answers.items()})
                st.rerun()
            except AnswerError:
                error.error(unanswered_line(t, answers))
                refused = True
    if refused:     # on a laptop the grown form puts the line under the fold: it is scrolled into view
        shown = st.session_state["about_you_refused"] = st.session_state.get("about_you_refused", 0) + 1
        error_into_view(shown)


def unanswered_line(t: Translate, answers: dict[str, str | None]) -> str:
    """The error line naming each question left unanswered (the rule session.save_demographics refused),
    e.g. Answer “Gender” and “Country of residence” to go on, or choose “Prefer not to say”."""
    missing = [t(QUOTED, question=t(QUESTIONS[a])) for a in QUESTIONS
               if a in answers and not (answers[a] or "").strip()]
    return t(UNANSWERED, questions=t.list(missing))
