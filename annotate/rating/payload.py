"""What a Submit may carry, checked before anything is stored: the card's payload comes from the rater's
browser, and a client that lies can send any JSON (a list for the answers, a number or a 15 MiB string
for the comment). Each refusal is one AnswerError sentence; what passes is bounded (COMMENT_LIMIT)."""
from __future__ import annotations

import unicodedata

from fairval.errors import AnswerError

COMMENT_LIMIT = 2000        # characters; the card's comment box stops there and counts as the rater types
_KEPT_CONTROLS = "\n\t"     # a comment may hold line breaks and tabs; no other control character


def answers_of(payload: object) -> dict:
    """The payload's answers, question -> value; refused unless the payload and its answers are objects."""
    if not isinstance(payload, dict):
        raise AnswerError("the answer sent is not an object of item, answers and comment")
    answers = payload.get("answers")
    if answers is None:
        return {}
    if not isinstance(answers, dict):
        raise AnswerError(f"the answers sent are a {type(answers).__name__}, not question: value pairs")
    return answers


def clean_comment(comment: object, *, asked: bool) -> str | None:
    """The comment to store: None when empty; refused when the task has no comment box, when it is not
    text, longer than COMMENT_LIMIT, or holds control characters or lone surrogates (which no keyboard
    types and no store can encode)."""
    if comment is None:
        return None
    if not isinstance(comment, str):
        raise AnswerError(f"the comment sent is a {type(comment).__name__}, not text")
    comment = comment.strip()
    if not comment:
        return None
    if not asked:
        raise AnswerError("this task has no comment box, so it takes no comment")
    if len(comment) > COMMENT_LIMIT:
        raise AnswerError(f"a comment may be at most {COMMENT_LIMIT:,} characters; this one has {len(comment):,}")
    odd = next((c for c in comment if c not in _KEPT_CONTROLS and unicodedata.category(c) in ("Cc", "Cs")), None)
    if odd is not None:
        raise AnswerError(f"a comment may not hold the control character U+{ord(odd):04X}")
    return comment
