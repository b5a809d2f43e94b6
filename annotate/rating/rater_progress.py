"""How far a rater has come: done so far, and what they can expect in all (the progress bar's two numbers),
counted by serving's own rules (session.may_run_short, rater_group, study_item; assignment.gold_due)."""
from __future__ import annotations

import time
from dataclasses import dataclass

from fairval.annotate.material.studies import LoadedStudy
from fairval.annotate.material.study_settings import StudySettings
from fairval.annotate.rating.assignment import gold_due, last_template, reachable
from fairval.annotate.rating.fills import fills_left, rater_share
from fairval.annotate.rating.session import Served, may_run_short, rater_group, study_item
from fairval.store import Connection, immediate, loads
from fairval.store import assignments as ledger
from fairval.store import items as item_store


@dataclass(frozen=True, slots=True)
class Progress:
    answered: int
    expected: int          # items this rater can expect in all (a cap, or what is left for them)


def progress(db: Connection, study: LoadedStudy, rater_id: str, *, now: float | None = None,
             shown: Served | None = None) -> Progress:
    """Done so far, and what the rater can expect in all: every item they answer, the attention checks
    included (a count that skipped them would tell which item is the check): done, the item on screen,
    what is still open to them now (capped per rater) and the checks the gold rate will put among those.
    It can shrink as others take items; it never promises more. `shown`: the item serving has just given the
    rater (their open slot), so it is not sought and read again; nor, when serving chose it anew, what serving
    read in that transaction (Counted: the rater's answers, the study's templates, the loads' rules)."""
    now = time.time() if now is None else now
    s = study.settings
    since = now - s.timeout_seconds
    rules = s.load_rules()
    counted = shown.counted if shown is not None else None
    if counted is not None and counted.loads != rules.key:
        counted = None                  # served under other settings than these: everything read afresh
    if counted is None and not loads.current(db, study.study_id, rules):
        with immediate(db, study.study_id):
            loads.sync(db, study.study_id, rules, since)
    regular, gold = (counted.regular, counted.gold) if counted else ledger.answered_count(db, study.study_id, rater_id)
    if shown is not None:
        holds, held_gold = True, shown.gold
    else:
        held = ledger.open_assignment(db, study.study_id, rater_id, since)
        holds = held is not None
        held_gold = held is not None and study_item(db, study, held["item_id"])["gold"] is not None
    row_group = rules.row_group(rater_group(db, study, rater_id))
    held_regular = int(holds and not held_gold)
    span = counted.span if counted else item_store.template_span(db, study.study_id)
    # fills of one template never two in a row, at most the cap of each: what that leaves
    served = ledger.templates_served(db, study.study_id, rater_id) if span > 1 else []
    share = rater_share(db, study, rater_id, served, now) if span > 1 else None
    if span and (share is not None or may_run_short(db, study, rater_id, row_group)):
        served = served or ledger.templates_served(db, study.study_id, rater_id)
        by_template = loads.open_fills(db, study.study_id, rater_id, row_group)
        fills = fills_left(study, by_template, served, share)
        left = by_template.get(None, 0) + (reachable(fills, last_template(served)) if span > 1
                                           and not s.fills_back_to_back else sum(fills.values()))
    else:
        left = loads.available(db, study.study_id, rater_id, row_group)
    regular_total = regular + held_regular + left
    if s.max_items_per_rater is not None:
        regular_total = min(regular_total, s.max_items_per_rater)
    regular_total = max(regular_total, regular)
    gold_total = gold + int(held_gold)
    unseen = loads.unseen_gold(db, study.study_id, rater_id)
    return Progress(regular + gold, regular_total + gold_total + checks_to_come(regular + held_regular, gold_total,
                                                                              regular_total, unseen, s))


def checks_to_come(regular: int, gold: int, regular_total: int, checks: int, s: StudySettings) -> int:
    """How many of `checks` (gold items the rater has not been served) serving will put among the rater's
    remaining regular items, from `regular` and `gold` served so far: serving's own rule, step by step."""
    served = 0
    while checks > served:
        if s.max_items_per_rater is not None and regular >= s.max_items_per_rater:
            break                                       # a capped rater is served nothing more
        if gold_due(regular, gold, s.gold_rate):
            gold, served = gold + 1, served + 1
        elif regular < regular_total:
            regular += 1
        else:
            break
    return served
