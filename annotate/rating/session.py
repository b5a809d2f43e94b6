"""The rater's session: where a rater is in the flow, serving the next item, recording answers.

Serving and recording each run in one IMMEDIATE transaction, so several Streamlit workers or
processes sharing the SQLite file cannot hand out the same slot twice or lose an answer.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Literal

from fairval.annotate.adaptive import next_pair as adaptive
from fairval.annotate.material.pairs import canonical_value, draw_flip
from fairval.annotate.material.records import rater_key
from fairval.annotate.material.studies import LoadedStudy, load_study, ready_loads, study_status
from fairval.annotate.rating import running_interval
from fairval.annotate.rating.assignment import (
    ItemLoad,
    avoided_templates,
    choose_item,
    gold_due,
    last_template,
    template_to_spread,
)
from fairval.annotate.rating.fills import (
    backed,
    fills_first,
    fills_left,
    may_run_short,
    put_off,
    rater_share,
    spent,
)
from fairval.annotate.rating.payload import clean_comment
from fairval.annotate.rating.vacancy import Vacancy, for_newcomer
from fairval.errors import AnswerError, RaterIdError, RaterSourceError, SlotTaken, StudyClosed, StudyError
from fairval.store import Connection, immediate, loads
from fairval.store import assignments as ledger
from fairval.store import items as item_store
from fairval.store import raters as rater_store
from fairval.store import ratings as rating_store
from fairval.store.engine import joined
from fairval.store.loads import LoadRules

Step = Literal["closed", "paused", "consent", "declined", "demographics", "instructions",
               "practice", "item", "done", "no_items"]


@dataclass(frozen=True, slots=True)
class Counted:
    """What serving read in the transaction that chose a new slot, for the progress drawn with that item."""
    regular: int                       # the rater's items answered, attention checks apart
    gold: int
    span: int                          # the study's templates (item_store.template_span)
    loads: str                         # the rules (LoadRules.key) the item loads were brought up to


@dataclass(frozen=True, slots=True)
class Served:
    item_id: str
    data: dict
    flipped: bool
    served_at: float
    gold: bool
    practice: bool = False
    expected: dict | None = None      # gold answers, shown as feedback on practice items
    counted: Counted | None = field(default=None, compare=False)      # a new slot's (the progress reads it)


def arrive(db: Connection, study_id: str, rater_id: str, *, source: str,
           platform_study_id: str | None = None, platform_session_id: str | None = None) -> dict:
    """The rater's row, made on first arrival. `source` is how this arrival came: 'prolific' (Prolific's
    PROLIFIC_PID), 'signed' (a link of `fairval study links`) or 'link' (an open link or a typed id). An id
    first seen from Prolific is never continued by an in-house link, nor the reverse (RaterSourceError):
    the two are different people who happen to share a string."""
    rater_id = rater_key(rater_id)
    row = rater_store.ensure_rater(db, study_id, rater_id, source=source,
                                   platform_study_id=platform_study_id,
                                   platform_session_id=platform_session_id)
    if (row["source"] == "prolific") != (source == "prolific"):
        raise RaterSourceError(f"the rater id {rater_id!r} arrived as a {_SOURCES.get(row['source'], row['source'])}, "
                               f"not a {_SOURCES.get(source, source)}")
    return row


_SOURCES = {"prolific": "Prolific participant", "signed": "signed in-house link", "link": "open link",
            "import": "rater of imported ratings"}


def next_step(db: Connection, study: LoadedStudy, rater_id: str, *, now: float | None = None,
              loaded_now: bool = False, rater: dict | None = None) -> Step:
    """Where this rater stands (under the study's status now, not when `study` was read: `loaded_now`, the
    caller loaded it in this same run, so its status is not read again); reading it changes nothing. `rater`:
    their row as this same run read it (a Submit's transaction), not read again."""
    rater = rater if rater is not None else rater_store.get_rater(db, study.study_id, rater_id)
    if rater is not None and rater["consent"] == "declined":
        return "declined"
    if rater is not None and rater["finished_at"] is not None:
        return "done"
    status = study.status if loaded_now else study_status(db, study.study_id)
    if status != "open":
        return "paused" if status == "paused" else "closed"
    if rater is None or rater["consent"] is None:
        # a study with nothing to serve says so before consent, not after onboarding (issue 54)
        return "consent" if vacancy(db, study, now=now).open else "no_items"
    if any(rater[a] is None for a in study.settings.asks()):
        return "demographics"
    if not rater["instructions_done"] and _group_full(db, study, rater_id, now):
        return "no_items"          # told right after the answer that decides it, not after instructions
    if not rater["instructions_done"]:
        return "instructions"
    if not rater["practice_done"] and item_store.has_practice(db, study.study_id):
        return "practice"
    return "item"


def vacancy(db: Connection, study: LoadedStudy, *, now: float | None = None) -> Vacancy:
    """Whether a rater who has seen nothing could be served (annotate/rating/vacancy.py)."""
    return for_newcomer(db, study, now=now)


def give_consent(db: Connection, study_id: str, rater_id: str, agreed: bool, *, language: str | None = None) -> None:
    """Record the choice and the language the rater picked; a refusal keeps nothing else (nor the platform's ids)."""
    if agreed:
        rater_store.update_rater(db, study_id, rater_id, consent="given", language=language)
    else:
        rater_store.update_rater(db, study_id, rater_id, consent="declined", platform_study_id=None,
                                 platform_session_id=None)


def save_demographics(db: Connection, study: LoadedStudy, rater_id: str, answers: dict[str, str]) -> None:
    missing = [a for a in study.settings.asks() if not (answers.get(a) or "").strip()]
    if missing:
        raise AnswerError(f"please answer: {', '.join(missing)}")
    rater_store.update_rater(db, study.study_id, rater_id,
                             **{a: answers[a].strip() for a in study.settings.asks()})


def _group_full(db: Connection, study: LoadedStudy, rater_id: str, now: float | None) -> bool:
    """In a balanced study: nothing is open to this rater's group, and they have nothing in hand."""
    s = study.settings
    if not s.balance_by:
        return False
    now = time.time() if now is None else now
    since = now - s.timeout_seconds
    if ledger.open_assignment(db, study.study_id, rater_id, since) is not None:
        return False
    if sum(ledger.answered_count(db, study.study_id, rater_id)):
        return False
    if ledger.any_lapsed(db, study.study_id, since):
        return False            # a place a rater left may be this group's: serving gives it back, then decides
    if adaptive.is_adaptive(study) and item_store.next_undecided(db, study.study_id) is not None:
        return False            # the adaptive design has pairs still to decide
    rules = s.load_rules()
    return loads.available(db, study.study_id, rater_id, rules.row_group(rater_group(db, study, rater_id))) <= 0


def finish_instructions(db: Connection, study_id: str, rater_id: str) -> None:
    rater_store.finish_instructions(db, study_id, rater_id)


def finish_practice(db: Connection, study_id: str, rater_id: str) -> None:
    rater_store.update_rater(db, study_id, rater_id, practice_done=1)


def practice_step(db: Connection, study_id: str, rater_id: str) -> int:
    """Which practice item the rater is on (0-based), kept in the database so a reload resumes there."""
    return int((rater_store.get_rater(db, study_id, rater_id) or {}).get("practice_step") or 0)


def next_practice(db: Connection, study_id: str, rater_id: str, step: int) -> None:
    rater_store.update_rater(db, study_id, rater_id, practice_step=step + 1)


def practice_items(db: Connection, study: LoadedStudy) -> list[Served]:
    return [Served(i["item_id"], i["data"], False, 0.0, False, True, i["gold"])
            for i in item_store.list_items(db, study.study_id, practice=True)]


def serve_next_item(db: Connection, study: LoadedStudy, rater_id: str, *,
                    now: float | None = None) -> Served | None:
    """The item this rater should answer now: their open slot if they hold one, else a new one.

    Returning to the same open slot is what makes a reload, or a second tab, show the same item
    rather than take another. None when nothing is left for this rater. The settings are read
    inside the write lock, so a change made by the researcher a moment ago is the one obeyed.
    """
    now = time.time() if now is None else now
    # A rater who holds an open slot (the next item, served with the last answer, or a reload) gets it
    # back from a read: no write lock on the way through every Submit.
    held = ledger.open_assignment(db, study.study_id, rater_id, now - study.settings.timeout_seconds)
    if held is not None:
        return _served(db, study, held)
    with immediate(db, study.study_id):
        return _serve_within(db, load_study(db, study.study_id), rater_id, now)


def serve_within(db: Connection, study_id: str, rater_id: str, now: float, *,
                 synced: LoadRules | None = None) -> Served | None:
    """Inside a write transaction that locked the study: the rater's next item (their open slot, else a new one)
    while the study is open, else None. The study's row is read once, for its status and its settings; no
    savepoint and no read before the lock, as serve_next_item needs from outside a transaction. `synced`: the
    rules this transaction has already brought the item loads up to (record_answer's), not checked again
    while the study's settings still give them."""
    return serve_current(db, load_study(db, study_id), rater_id, now, synced=synced)


def serve_current(db: Connection, current: LoadedStudy, rater_id: str, now: float, *,
                  synced: LoadRules | None = None) -> Served | None:
    """serve_within for the study as read inside that transaction (`current`)."""
    return _serve_within(db, current, rater_id, now, synced) if current.status == "open" else None


def _serve_within(db: Connection, study: LoadedStudy, rater_id: str, now: float,
                  synced: LoadRules | None = None) -> Served | None:
    """serve_next_item's work, inside a write transaction the caller holds (settings read in it)."""
    s = study.settings
    since = now - s.timeout_seconds
    rules = s.load_rules()
    if synced is None or synced.key != rules.key:
        rules = ready_loads(db, study, now)
    loads.reclaim(db, study.study_id, since, rules)
    held = ledger.open_assignment(db, study.study_id, rater_id, since)
    if held is not None:
        return _served(db, study, held)
    regular, gold = ledger.answered_count(db, study.study_id, rater_id)
    if s.max_items_per_rater is not None and regular >= s.max_items_per_rater:
        return None
    group = rater_group(db, study, rater_id)
    row_group = rules.row_group(group)
    # The first open candidates in the serving order from the index; the pure policy decides among them.
    span = item_store.template_span(db, study.study_id)
    served = ledger.templates_served(db, study.study_id, rater_id) if span else []    # no template: nothing to read
    last = last_template(served)
    avoid = avoided_templates(served, s.max_fills_per_template, others_exist=last is not None
                              and not s.fills_back_to_back and item_store.has_other_template(db, study.study_id, last))
    # a study of several templates: the rater's share of the fills (two index seeks spare the rest the count)
    share = rater_share(db, study, rater_id, served, now) if span > 1 else None
    largest = loads.open_places(db, study.study_id, rater_id, row_group, share.largest, rules) if share else 0
    if share is not None and (spent(db, study, rater_id, share, largest, row_group, rules)
                              or not backed(db, study, rater_id, share, largest, since, row_group)):
        avoid |= share.others         # their share of the other templates' fills is served, or none could follow

    def choose(rows: list[dict], want_gold: bool) -> str | None:
        return choose_item([ItemLoad(r["item_id"], r["position"], r["taken"],
                                     {group: r["taken_group"]} if group is not None and not r["gold"] else {},
                                     bool(r["gold"]), r["serve_rank"], r["template"]) for r in rows],
                           seen=set(), target=s.raters_per_item, rater_group=group, quota=s.quota(),
                           want_gold=want_gold, avoid=avoid)
    cohort, later = (share.cohort if share else None), put_off(s, share, regular)
    rows = loads.candidates_with_gold(db, study.study_id, rater_id, row_group, avoid=avoid | later, cohort=cohort)
    if later and not any(not r["gold"] for r in rows):       # nothing else open to them: the largest after all
        rows = loads.candidates_with_gold(db, study.study_id, rater_id, row_group, avoid=avoid, cohort=cohort)
    item_id = choose(rows, gold_due(regular, gold, s.gold_rate))
    chosen = next((r for r in rows if r["item_id"] == item_id and not r["gold"]), None)
    if chosen is not None and chosen["template"] is None and share is not None:    # a planned rater's fills first
        chosen = fills_first(lambda t: loads.candidates(db, study.study_id, rater_id, row_group, gold=False,
                                                        avoid=avoid, template=t, cohort=cohort), share, avoid, later) or chosen
        item_id = chosen["item_id"]
    if (chosen is not None and chosen["template"] is not None and span > 1
            and not s.fills_back_to_back and (share is not None or may_run_short(db, study, rater_id, row_group))):
        # the order's next fill, unless it would leave the rater fewer items than they can still get
        fills = fills_left(study, loads.open_fills(db, study.study_id, rater_id, row_group), served, share)
        better = template_to_spread(fills, last, chosen["template"])
        if better is not None:
            item_id = choose(loads.candidates(db, study.study_id, rater_id, row_group, gold=False, avoid=avoid | later,
                                              template=better, cohort=cohort), False) or item_id
    if item_id is None and adaptive.is_adaptive(study) and not study.recorded.stopped:
        # nothing open: the adaptive design decides its next pairs now, in this transaction
        item_id = adaptive.decide_next(db, study, now)
        running_interval.advance_decided(db, study)      # pairs left to the judge may extend the decided prefix
    if item_id is None:
        return None
    flipped = study.task.is_pair and draw_flip(s.seed, study.study_id, rater_id, item_id,
                                               s.flip_probability)
    # an insert: a slot it could not keep raises there, so the slot is not read back (issue 58)
    loads.serve_slot(db, study.study_id, rater_id, item_id, row_group, rules, flipped=flipped, served_at=now)
    return dataclasses.replace(_served(db, study, {"item_id": item_id, "flipped": int(flipped), "served_at": now}),
                               counted=Counted(regular, gold, span, rules.key))


def rater_language(db: Connection, study: LoadedStudy, rater_id: str | None, asked: str | None = None) -> str:
    """The language a rater reads the study in: the one kept with their consent, else `asked` (picked on the
    consent screen, or the browser's), each while the study offers it, else the study's own."""
    try:
        rater = rater_store.get_rater(db, study.study_id, rater_key(rater_id)) if rater_id else None
    except RaterIdError:                # the page says what is wrong with the id when the rater arrives
        rater = None
    return study.settings.rater_language((rater["language"] if rater else None) or asked)


def rater_group(db: Connection, study: LoadedStudy, rater_id: str) -> str | None:
    s = study.settings
    if not s.balance_by:                # no group to balance by: the rater's row is not read (issue 58)
        return None
    return (rater_store.get_rater(db, study.study_id, rater_id) or {}).get(s.balance_by)


def study_item(db: Connection, study: LoadedStudy, item_id: str) -> dict:
    item = item_store.get_item(db, study.study_id, item_id)
    if item is None:                            # assignments refer to stored items (a foreign key)
        raise StudyError(f"no item {item_id!r} in study {study.study_id!r}")
    return item


def _served(db: Connection, study: LoadedStudy, assignment: dict) -> Served:
    item = study_item(db, study, assignment["item_id"])
    return Served(item["item_id"], item["data"], bool(assignment["flipped"]),
                  assignment["served_at"], item["gold"] is not None)


def validate_answers(study: LoadedStudy, answers: dict[str, str]) -> dict[str, str]:
    if not isinstance(answers, dict):
        raise AnswerError(f"the answers are a {type(answers).__name__}, not question: value pairs")
    clean = {}
    for q in study.task.questions:
        value = answers.get(q.id)
        if value is None or value == "":
            raise AnswerError(f"please answer the question {q.id!r}")
        if str(value) not in q.values:
            raise AnswerError(f"{value!r} is not an answer to {q.id!r}; answers are {', '.join(q.values)}")
        clean[q.id] = str(value)
    return clean


def record_answer(db: Connection, study: LoadedStudy, rater_id: str, item_id: str, answers: dict[str, str],
                  *, comment: str | None = None, now: float | None = None, serve_next: bool = False,
                  locked: dict | None = None) -> bool:
    """Store one rater's answers to one item, once: a repeated submit changes nothing (returns False).
    `serve_next`: in the same write transaction, hold the rater's next item for them (what the page will
    show), so a Submit costs one write transaction, not two.

    An answer to a slot that timed out is still kept, and so is one sent while the study is paused: the
    rater did the work on an item they were given. A closed study takes no more answers (AnswerError).
    `locked`: the rater's row ({} for none) as read by the caller's write transaction, which also read `study`
    under its lock: neither the row nor the study's status is read again (a Submit, issue 58).
    """
    now = time.time() if now is None else now
    clean = validate_answers(study, answers)
    comment = clean_comment(comment, asked=study.task.comment)
    # inside a Submit's transaction without a savepoint: a refused answer ends that transaction as well
    with joined(db, study.study_id):
        if (study.status if locked is not None else study_status(db, study.study_id)) == "closed":
            raise StudyClosed("the study closed before this answer arrived")
        rules = ready_loads(db, study, now)
        assignment = ledger.get_assignment(db, study.study_id, rater_id, item_id)
        if assignment is None:
            raise AnswerError(f"item {item_id!r} was never served to rater {rater_id!r}")
        if not assignment["counted"] and ledger.late_and_full(db, study.study_id, assignment,
                                                              study.settings.raters_per_item):
            raise SlotTaken(f"item {item_id!r} was given to other raters after this rater's time ran out")
        flipped = bool(assignment["flipped"])
        shown = assignment["served_at"]
        rater = locked if locked is not None else rater_store.get_rater(db, study.study_id, rater_id) or {}
        language = study.settings.rater_language(rater.get("language"))
        # a clock set back since the item was shown: the answer is not before it was shown, and its
        # duration is unknown (NULL), not 0 s (the speed flag would read that as a rushed answer)
        rows = [{"item_id": item_id, "rater_id": rater_id, "question": q.id, "value": clean[q.id],
                 "canonical": canonical_value(q, clean[q.id], flipped),
                 "flipped": int(flipped) if study.task.is_pair else None,
                 "comment": comment if k == 0 else None, "shown_at": shown, "answered_at": max(now, shown),
                 "seconds": now - shown if now >= shown else None, "source": "app", "language": language}
                for k, q in enumerate(study.task.questions)]       # the comment once, on the first row
        new = loads.record_answer(db, study.study_id, assignment, rows,
                                  rules.row_group(rater.get(study.settings.balance_by)
                                                  if study.settings.balance_by else None), rules, now)
        if new:                 # a pair it completes steps the stopping rule's interval, in this transaction
            running_interval.advance(db, study, item_id)
            adaptive.answered(db, study, rater_id, item_id)     # and the adaptive design's mix
        if serve_next:                  # a paused study serves nothing new
            serve_within(db, study.study_id, rater_id, now)
    return new > 0


def answer_is_stored(db: Connection, study: LoadedStudy, rater_id: str, item_id: str, answers: dict[str, str],
                     comment: str | None = None) -> bool:
    """Whether what is stored for this rater's item is these answers and this comment (a repeated Submit),
    not others (given first in another tab or window: the first answer is the one kept, and a second tab
    whose comment differs is told its answer was not saved)."""
    stored = rating_store.answers_of(db, study.study_id, item_id, rater_id)
    return (bool(stored) and isinstance(answers, dict)
            and all(stored.get(q.id) == str(answers.get(q.id)) for q in study.task.questions)
            and rating_store.comment_of(db, study.study_id, item_id, rater_id) == clean_comment(
                comment, asked=study.task.comment))


def finish(db: Connection, study_id: str, rater_id: str) -> None:
    rater = rater_store.get_rater(db, study_id, rater_id)
    if rater and rater["finished_at"] is None:
        rater_store.update_rater(db, study_id, rater_id, finished_at=time.time())
