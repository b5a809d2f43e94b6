"""Smaller things a rater met on the way (issue 54): quotes in quotes, what a complete or busy study says."""
import re

import pytest

from fairval.annotate.material.tasks import PRESETS
from fairval.annotate.rating.session import Served
from fairval.ui.answer_card import practice_feedback
from fairval.ui.i18n import translator

# each language's outer quotes in the feedback sentence (its catalogue), and a pair of the same kind
OUTER = {"en": ("\u201c", "\u201d"), "de": ("\u201e", "\u201c"), "es": ("\u00ab", "\u00bb"), "fr": ("\u00ab", "\u00bb"),
         "ja": ("\u300c", "\u300d"), "zh_Hans": ("\u201c", "\u201d"), "ar": ("\u00ab", "\u00bb")}


@pytest.mark.parametrize("language", sorted(OUTER))
def test_pair_practice_feedback_never_nests_a_quote_in_quotes_of_its_kind(language):
    """The pair option's label quotes its groups (“woman”); quoted again in the feedback it read
    “Giving Response 1 to a user in the group “woman” …”, the quotes nested in their own kind."""
    task, t = PRESETS["harmful_stereotype"], translator(language)
    served = Served(item_id="p1", data={"prompt": "Q", "response_1": "R1", "response_2": "R2", "group_a": "woman",
                                        "group_b": "man"}, flipped=False, served_at=0.0, gold=False, practice=True,
                    expected={"harm": "A"})
    text = practice_feedback(task.translated(t), served, {"harm": "B"}, t)["harm"]["text"]
    opening, closing = OUTER[language]
    assert "woman" in text and "man" in text
    # outside the outer quotes' own spans, no quote of their kind: each span holds no further opening mark
    spans = re.findall(re.escape(opening) + "(.*?)" + re.escape(closing), text)
    assert len(spans) == 2, text
    assert all(opening not in span and closing not in span for span in spans), text
