"""Per-item load, kept current in the same write transaction as the change that moves it.

A rater *holds* an item when they rated it or hold an open slot (served, unanswered, not yet
released). `item_loads` has one row per item and balance group ('' without balance, and for gold
items) with `taken` (holders), `taken_group` (holders in that group) and `open` (under the target
and the group's quota), indexed in serving order, so finding the next item is an index seek and
counting what is left is one row of `open_counts`, whatever the size of the study.

Invariant, for every item: taken = raters with a rating on it + its assignments with counted = 1
(the two never overlap: answering or importing a rating clears `counted`). A slot is released
(counted = 0) by `reclaim` once its timeout has passed; a released slot stays released.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fairval.errors import StoreError
from fairval.store import assignments as ledger
from fairval.store import order as item_order
from fairval.store import ratings as rating_store
from fairval.store import running
from fairval.store.engine import Connection, Row
from fairval.store.raters import ATTRIBUTES, get_rater

NO_GROUP = ""          # the row group of unbalanced studies and of gold items
ORDER = "random-depth-first"   # rows carry each item's serve_rank and template (store/schema.py v18)


def is_open(*, gold: bool, taken: int, target: int, taken_group: int = 0, cap: int | None = None) -> bool:
    """The one rule of "open": a gold item always; a regular one while under its target of raters and, in a
    balanced study, under the rater group's quota. The pure policy (annotate/rating/assignment.py), the
    load rows and their rebuild all ask this."""
    return bool(gold) or (taken < target and (cap is None or taken_group < cap))


@dataclass(frozen=True, slots=True)
class LoadRules:
    """What `open` means for a study: the settings serving depends on."""
    target: int                        # raters per item
    timeout: float                     # seconds a served slot is held
    balance_by: str | None = None      # a rater attribute, or None
    groups: tuple[str, ...] = ()       # balance groups, each with `cap` raters per item
    cap: int | None = None

    def __post_init__(self) -> None:
        if self.balance_by is not None and self.balance_by not in ATTRIBUTES:
            raise StoreError(f"balance attribute must be one of {ATTRIBUTES}, not {self.balance_by!r}")

    @property
    def key(self) -> str:
        # ORDER names how rows are ordered: loads kept before the serving order existed rebuild once
        return json.dumps([self.target, self.timeout, self.balance_by, list(self.groups), self.cap, ORDER])

    @property
    def row_groups(self) -> tuple[str, ...]:
        return self.groups if self.balance_by else (NO_GROUP,)

    def row_group(self, attribute: str | None) -> str | None:
        """The row group a rater with this attribute value counts in (None: no group row)."""
        return attribute if self.balance_by else NO_GROUP

    def is_open(self, gold: int, taken: int, taken_group: int) -> int:
        cap = None if self.cap is None or not self.balance_by else self.cap
        return int(is_open(gold=bool(gold), taken=taken, target=self.target, taken_group=taken_group, cap=cap))

    def _group_sql(self, alias: str) -> str:
        # Safe to inline: balance_by was checked against ATTRIBUTES.
        return f"{alias}.{self.balance_by}" if self.balance_by else "''"


def current(db: Connection, study_id: str, rules: LoadRules) -> bool:
    """Whether the study's loads were built under these rules (and not marked stale since)."""
    return bool(db.scalar("SELECT loads_key FROM studies WHERE study_id = ?", [study_id]) == rules.key)


def sync(db: Connection, study_id: str, rules: LoadRules, since: float) -> bool:
    """Rebuild the study's loads when they were built under other rules (or never). True if rebuilt."""
    if current(db, study_id, rules):
        return False
    rebuild(db, study_id, rules, since)
    return True


def invalidate(db: Connection, study_id: str) -> None:
    """Mark the loads stale (e.g. a rater's group changed): the next serve rebuilds them."""
    db.execute("UPDATE studies SET loads_key = NULL WHERE study_id = ?", [study_id])


def rebuild(db: Connection, study_id: str, rules: LoadRules, since: float) -> None:
    """Recompute every load of the study from the ledger (slots served before `since` are released)."""
    db.execute("""UPDATE assignments SET counted = CASE WHEN answered_at IS NULL AND served_at >= :since
                    AND NOT EXISTS (SELECT 1 FROM ratings t WHERE t.study_id = assignments.study_id
                                      AND t.item_id = assignments.item_id AND t.rater_id = assignments.rater_id)
                    THEN 1 ELSE 0 END
                  WHERE study_id = :s""", {"s": study_id, "since": since})
    item_order.fill_order(db, study_id)
    db.execute("DELETE FROM item_loads WHERE study_id = ?", [study_id])
    db.execute("DELETE FROM open_counts WHERE study_id = ?", [study_id])
    groups = rules.row_groups
    values = ", ".join(f"(:g{k})" for k in range(len(groups)))
    params = {"s": study_id, **{f"g{k}": g for k, g in enumerate(groups)}}
    db.execute(f"""
        INSERT INTO item_loads (study_id, item_id, grp, position, gold, taken, taken_group, open, serve_rank, template)
        WITH holders AS (
                SELECT item_id, rater_id FROM ratings WHERE study_id = :s GROUP BY item_id, rater_id
                UNION ALL
                SELECT item_id, rater_id FROM assignments WHERE study_id = :s AND counted = 1),
             held AS (
                SELECT h.item_id, COALESCE({rules._group_sql('r')}, '') AS grp, COUNT(*) AS n
                  FROM holders h LEFT JOIN raters r ON r.study_id = :s AND r.rater_id = h.rater_id
                 GROUP BY h.item_id, COALESCE({rules._group_sql('r')}, '')),
             totals AS (SELECT item_id, SUM(n) AS taken FROM held GROUP BY item_id),
             groups (grp) AS (VALUES {values})
        SELECT :s, i.item_id, g.grp, i.position, 0, COALESCE(t.taken, 0), COALESCE(h.n, 0), 0, i.serve_rank, i.template
          FROM items i CROSS JOIN groups g
          LEFT JOIN totals t ON t.item_id = i.item_id
          LEFT JOIN held h ON h.item_id = i.item_id AND h.grp = g.grp
         WHERE i.study_id = :s AND i.practice = 0 AND i.gold IS NULL AND i.judge_only = 0
        UNION ALL
        SELECT :s, i.item_id, '', i.position, 1, COALESCE(t.taken, 0), COALESCE(t.taken, 0), 0, i.serve_rank, i.template
          FROM items i LEFT JOIN totals t ON t.item_id = i.item_id
         WHERE i.study_id = :s AND i.practice = 0 AND i.gold IS NOT NULL""", params)
    # open by the one rule (is_open), not by a second copy of it in SQL
    counts = db.execute("SELECT DISTINCT gold, taken, taken_group FROM item_loads WHERE study_id = ?",
                        [study_id]).fetchall()
    db.executemany("UPDATE item_loads SET open = 1 WHERE study_id = ? AND gold = ? AND taken = ? AND taken_group = ?",
                   [(study_id, g, t, tg) for g, t, tg in counts if rules.is_open(g, t, tg)])
    db.executemany("""INSERT INTO open_counts (study_id, grp, n)
                      SELECT :s, :g, COUNT(*) FROM item_loads
                       WHERE study_id = :s AND grp = :g AND gold = 0 AND open = 1""",
                   [{"s": study_id, "g": g} for g in groups])
    db.execute("UPDATE studies SET loads_key = ? WHERE study_id = ?", [rules.key, study_id])


def add_items(db: Connection, study_id: str, items: Iterable[tuple[str, int, bool]], rules: LoadRules) -> None:
    """Rows for newly imported (item_id, position, gold) items, held by nobody yet."""
    rows, opened = [], dict.fromkeys(rules.row_groups, 0)
    regular_open = rules.is_open(0, 0, 0)
    for item_id, position, gold in items:
        for grp in ((NO_GROUP,) if gold else rules.row_groups):
            rows.append((study_id, item_id, grp, position, int(gold), 1 if gold else regular_open))
            if not gold:
                opened[grp] += regular_open
    # rank and template from the item's own row (store/items.py set them when it was stored)
    db.executemany("INSERT INTO item_loads (study_id, item_id, grp, position, gold, taken, taken_group, open, "
                   "serve_rank, template) SELECT ?, i.item_id, ?, ?, ?, 0, 0, ?, i.serve_rank, i.template FROM items i "
                   "WHERE i.study_id = ? AND i.item_id = ?",
                   [(sid, grp, position, gold, is_open, sid, item_id) for sid, item_id, grp, position, gold, is_open in rows])
    _count_open(db, study_id, opened)


def _bump(db: Connection, study_id: str, item_id: str, group: str | None, delta: int, rules: LoadRules) -> None:
    """One holder more (delta 1) or fewer (-1) on an item, counted in `group`'s row too."""
    rows = db.execute("SELECT grp, gold, taken, taken_group, open FROM item_loads "
                      "WHERE study_id = ? AND item_id = ?", [study_id, item_id]).fetchall()
    changes: list[tuple[Any, ...]] = []
    flips: dict[str, int] = {}
    for grp, gold, taken, taken_group, was_open in rows:
        taken += delta
        if grp == group:
            taken_group += delta
        now_open = rules.is_open(gold, taken, taken_group)
        changes.append((taken, taken_group, now_open, study_id, item_id, grp))
        if now_open != was_open and not gold:
            flips[grp] = flips.get(grp, 0) + (now_open - was_open)
    db.executemany("UPDATE item_loads SET taken = ?, taken_group = ?, open = ? "
                   "WHERE study_id = ? AND item_id = ? AND grp = ?", changes)
    _count_open(db, study_id, flips)


def serve_slot(db: Connection, study_id: str, rater_id: str, item_id: str, group: str | None, rules: LoadRules,
               *, flipped: bool, served_at: float) -> None:
    """Hold `item_id` for the rater: the ledger's slot and the item's load move together."""
    ledger.insert_assignment(db, study_id, rater_id, item_id, flipped=flipped, served_at=served_at)
    _bump(db, study_id, item_id, group, +1, rules)


def record_answer(db: Connection, study_id: str, assignment: Row, rows: list[Row], group: str | None,
                  rules: LoadRules, now: float) -> int:
    """Store a rater's answer to a served slot (rows of ratings) and close the slot; returns the ratings
    written. The rating now holds the item in place of the slot: the load moves only when the slot had
    been released (a late answer) or the item was rated before (a repeat changes nothing)."""
    item_id, rater_id = assignment["item_id"], assignment["rater_id"]
    had_rating = rating_store.has_rating(db, study_id, item_id, rater_id)
    written = rating_store.insert_ratings(db, study_id, rows)
    ledger.mark_answered(db, study_id, rater_id, item_id, now)
    delta = (0 if had_rating else 1) - assignment["counted"]
    if delta:
        _bump(db, study_id, item_id, group, delta, rules)
    return written


def record_imported(db: Connection, study_id: str, rows: list[Row], rated: set[tuple[str, str]],
                    rules: LoadRules, *, regrouped: bool) -> int:
    """Store imported ratings; each (item, rater) rated for the first time is a new holder of the item,
    unless it replaces the rater's open slot there. `regrouped`: a rater's balance group changed under
    items they hold, so every load is recounted at the next serve. Returns the ratings written."""
    written = rating_store.insert_ratings(db, study_id, rows)
    running.forget(db, study_id)                # pairs completed out of the answers' order: rebuilt
    first = list(dict.fromkeys((r["item_id"], r["rater_id"]) for r in rows if (r["item_id"], r["rater_id"]) not in rated))
    new_holders = ledger.release_for_ratings(db, study_id, first)
    if regrouped:
        invalidate(db, study_id)
        return written
    for item_id, rater_id in new_holders:
        group = (get_rater(db, study_id, rater_id) or {}).get(rules.balance_by) if rules.balance_by else None
        _bump(db, study_id, item_id, rules.row_group(group), +1, rules)
    return written


def _count_open(db: Connection, study_id: str, deltas: dict[str, int]) -> None:
    db.executemany("""INSERT INTO open_counts (study_id, grp, n) VALUES (?, ?, ?)
                      ON CONFLICT (study_id, grp) DO UPDATE SET n = open_counts.n + excluded.n""",
                   [(study_id, g, d) for g, d in deltas.items() if d])


def reclaim(db: Connection, study_id: str, since: float, rules: LoadRules) -> int:
    """Release the open slots served before `since` (each once); returns how many."""
    expired = db.execute(f"""SELECT a.rater_id, a.item_id, {rules._group_sql('r')}
                               FROM assignments a LEFT JOIN raters r
                                 ON r.study_id = a.study_id AND r.rater_id = a.rater_id
                              WHERE a.study_id = ? AND a.counted = 1 AND a.served_at < ?""",
                         [study_id, since]).fetchall()
    for rater_id, item_id, group in expired:
        db.execute("UPDATE assignments SET counted = 0 WHERE study_id = ? AND rater_id = ? AND item_id = ?",
                   [study_id, rater_id, item_id])
        _bump(db, study_id, item_id, group, -1, rules)
    return len(expired)


def release_rater(db: Connection, study_id: str, rater_id: str, rules: LoadRules) -> int:
    """Release every slot the rater still holds (they returned the study); returns how many."""
    held = db.execute(f"""SELECT a.item_id, {rules._group_sql('r')}
                            FROM assignments a LEFT JOIN raters r
                              ON r.study_id = a.study_id AND r.rater_id = a.rater_id
                           WHERE a.study_id = ? AND a.rater_id = ? AND a.counted = 1""",
                      [study_id, rater_id]).fetchall()
    for item_id, group in held:
        db.execute("UPDATE assignments SET counted = 0 WHERE study_id = ? AND rater_id = ? AND item_id = ?",
                   [study_id, rater_id, item_id])
        _bump(db, study_id, item_id, group, -1, rules)
    return len(held)


@dataclass(frozen=True, slots=True)
class Cohort:
    """Planned raters of one share where fills are spread (annotate/rating/fills.py): `size` from arrival `first`."""
    first: int
    size: int


def candidates(db: Connection, study_id: str, rater_id: str, group: str | None, *, gold: bool,
               avoid: Iterable[str] = (), template: str | None = None, cohort: Cohort | None = None) -> list[Row]:
    """Open items (regular, in `group`'s rows; or gold) this rater has not seen, of no template in `avoid` (and,
    given `template`, fills of that template only). Regular: the first in the serving order among items others have
    started, and the first among items nobody holds (the policy prefers the former: depth-first); each an index seek
    on a partial index, costing what the rater has seen or avoids, not the study. Gold: the least-taken, import order
    next. `cohort` (a planned rater where fills are spread): depth-first in the cohort, the first found of an item it
    started, a fresh one, the least-taken another cohort started (taking those left the last raters short of
    distinct items: 17-18 for 15 planned, serve66; least-taken first left items nobody completes, QA stop 65).
    One statement (one round trip), each seek a LIMIT 1 subquery of its own."""
    return _first_of(db, [_seeks(study_id, rater_id, group, gold=gold, avoid=avoid, template=template, cohort=cohort, tag="")])


def candidates_with_gold(db: Connection, study_id: str, rater_id: str, group: str | None, *,
                         avoid: Iterable[str] = (), cohort: Cohort | None = None) -> list[Row]:
    """candidates(gold=False) then candidates(gold=True), in one statement: the regular seeks and the gold one."""
    return _first_of(db, [_seeks(study_id, rater_id, group, gold=False, avoid=avoid, template=None, cohort=cohort, tag=""),
                          _seeks(study_id, rater_id, group, gold=True, avoid=avoid, template=None, cohort=None, tag="g")])


_COLUMNS = "l.item_id, l.position, l.taken, l.taken_group, l.gold, l.serve_rank, l.template"


def _seeks(study_id: str, rater_id: str, group: str | None, *, gold: bool, avoid: Iterable[str],
           template: str | None, cohort: Cohort | None, tag: str) -> tuple[list[str], Row, bool]:
    """The seeks (each `SELECT … ORDER BY … LIMIT 1`), their parameters, named with `tag` so that the seeks
    of several calls go in one statement, and whether only the first seek that finds one counts."""
    avoid = sorted(set(avoid))
    marks = ", ".join(f":{tag}t{k}" for k in range(len(avoid)))
    params = {f"{tag}s": study_id, f"{tag}r": rater_id, f"{tag}g": NO_GROUP if gold else group,
              f"{tag}gold": int(gold), **{f"{tag}t{k}": t for k, t in enumerate(avoid)}}
    if template is not None:
        params[f"{tag}only"] = template
    where = f"""l.study_id = :{tag}s AND l.grp = :{tag}g AND l.gold = :{tag}gold AND l.open = 1
              {f"AND (l.template IS NULL OR l.template NOT IN ({marks}))" if avoid else ""}
              {f"AND l.template = :{tag}only" if template is not None else ""}
              AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.study_id = :{tag}s AND a.rater_id = :{tag}r
                                AND a.item_id = l.item_id)
              AND NOT EXISTS (SELECT 1 FROM ratings t WHERE t.study_id = :{tag}s AND t.item_id = l.item_id
                                AND t.rater_id = :{tag}r)"""

    def seek(cond: str, order: str) -> str:
        return f"SELECT {_COLUMNS} FROM item_loads l WHERE {where} AND {cond} ORDER BY {order}, l.position LIMIT 1"
    if gold:
        return [seek("l.gold = 1", "l.taken")], params, False    # `gold = 1` literal: its partial index
    # the literal `open = 1 AND taken > 0` / `= 0` lets the planner use the partial indexes (schema v18)
    if cohort is None:
        return [seek("l.taken > 0", "l.serve_rank"), seek("l.taken = 0", "l.serve_rank")], params, False
    params |= {f"{tag}first": cohort.first, f"{tag}size": cohort.size}
    ours = (f"EXISTS (SELECT 1 FROM assignments b WHERE b.study_id = :{tag}s AND b.item_id = l.item_id AND b.rater_id "
            f"IN (SELECT rater_id FROM assignments WHERE study_id = :{tag}s GROUP BY rater_id "
            f"ORDER BY MIN(served_at), rater_id LIMIT :{tag}size OFFSET :{tag}first))")  # store/assignments.arrival's order
    return [seek(f"l.taken > 0 AND {ours}", "l.serve_rank"), seek("l.taken = 0", "l.serve_rank"),
            seek("l.taken > 0", "l.taken, l.serve_rank")], params, True


def _first_of(db: Connection, seeks: list[tuple[list[str], Row, bool]]) -> list[Row]:
    """The rows the seeks find, in order, from one statement: numbered subqueries in UNION ALL (alternatives: first)."""
    selects = [sql for part, _, _ in seeks for sql in part]
    params = {k: v for _, p, _ in seeks for k, v in p.items()}
    sql = " UNION ALL ".join(f"SELECT {k} AS seek, q{k}.* FROM ({one}) q{k}" for k, one in enumerate(selects))
    part_of = [n for n, (part, _, _) in enumerate(seeks) for _ in part]
    kept, found = [], set()
    for row in sorted(db.query(sql, params), key=lambda row: row["seek"]):
        n = part_of[row.pop("seek")]
        if n not in found or not seeks[n][2]:
            kept.append(row)
        found.add(n)
    return kept


def open_of_template(db: Connection, study_id: str, group: str | None, template: str) -> int:
    """Regular items of this template open in `group`'s rows, to any rater."""
    if group is None:
        return 0
    return int(db.scalar("SELECT COUNT(*) FROM item_loads WHERE study_id = ? AND grp = ? AND gold = 0 AND open = 1 "
                         "AND template = ?", [study_id, group, template]))


def open_places(db: Connection, study_id: str, rater_id: str, group: str | None, template: str, rules: LoadRules) -> int:
    """Ratings still wanted on this template's items open in `group`'s rows, unseen by the rater."""
    place = (":t - l.taken" if not rules.balance_by or rules.cap is None else   # under the group's quota too
             "CASE WHEN :q - l.taken_group < :t - l.taken THEN :q - l.taken_group ELSE :t - l.taken END")
    return 0 if group is None else int(db.scalar(
        f"""SELECT COALESCE(SUM({place}), 0) FROM item_loads l WHERE l.study_id = :s AND l.grp = :g AND l.gold = 0
              AND l.open = 1 AND l.template = :tm AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.study_id = :s
              AND a.rater_id = :r AND a.item_id = l.item_id) AND NOT EXISTS (SELECT 1 FROM ratings x
              WHERE x.study_id = :s AND x.item_id = l.item_id AND x.rater_id = :r)""",
        {"s": study_id, "g": group, "r": rater_id, "tm": template, "t": rules.target, "q": rules.cap or 0}))


def open_fills(db: Connection, study_id: str, rater_id: str, group: str | None) -> dict[str | None, int]:
    """Regular items still open to this rater (what `available` counts), by template (None: items of no
    template): the open rows of the rater's group by template, less those the rater has seen. The first
    reads every open row of the group (an index scan): asked only of studies with templates."""
    if group is None:
        return {}
    params = {"s": study_id, "g": group, "r": rater_id}
    counts = {t: int(n) for t, n in db.execute(
        "SELECT template, COUNT(*) FROM item_loads WHERE study_id = :s AND grp = :g AND gold = 0 AND open = 1 "
        "GROUP BY template", params).fetchall()}
    for t, n in db.execute(
            """SELECT l.template, COUNT(*)
                 FROM (SELECT item_id FROM assignments WHERE study_id = :s AND rater_id = :r
                       UNION SELECT item_id FROM ratings WHERE study_id = :s AND rater_id = :r) seen
                 JOIN item_loads l ON l.study_id = :s AND l.grp = :g AND l.item_id = seen.item_id
                WHERE l.gold = 0 AND l.open = 1 GROUP BY l.template""", params).fetchall():
        counts[t] -= int(n)
    return {t: n for t, n in counts.items() if n > 0}


def unseen_gold(db: Connection, study_id: str, rater_id: str) -> int:
    """Attention checks open to this rater that they have not been served (the progress line's count of
    checks still to come)."""
    return int(db.scalar(
        """SELECT COUNT(*) FROM item_loads l WHERE l.study_id = :s AND l.grp = :g AND l.gold = 1 AND l.open = 1
              AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.study_id = :s AND a.rater_id = :r
                                AND a.item_id = l.item_id)
              AND NOT EXISTS (SELECT 1 FROM ratings t WHERE t.study_id = :s AND t.item_id = l.item_id
                                AND t.rater_id = :r)""",
        {"s": study_id, "r": rater_id, "g": NO_GROUP}))


def pairs_in_progress(db: Connection, study_id: str, target: int) -> int:
    """Regular items started (held or rated by someone) and not yet at their target: the open window."""
    return int(db.scalar("SELECT COUNT(DISTINCT item_id) FROM item_loads WHERE study_id = ? AND gold = 0 "
                         "AND taken > 0 AND taken < ?", [study_id, target]))


def open_total(db: Connection, study_id: str) -> int:
    """Regular items open in any group (a newcomer's group is not known yet)."""
    return int(db.scalar("SELECT COALESCE(SUM(n), 0) FROM open_counts WHERE study_id = ?", [study_id]))


def available(db: Connection, study_id: str, rater_id: str, group: str | None) -> int:
    """Regular items still open to this rater: open in their group, less those they have seen."""
    if group is None:
        return 0
    # Driven from the rater's own items (a join, not IN), so it costs what they have seen, not the study.
    return int(db.scalar(
        """SELECT COALESCE((SELECT n FROM open_counts WHERE study_id = :s AND grp = :g), 0)
                - (SELECT COUNT(*) FROM (SELECT item_id FROM assignments WHERE study_id = :s AND rater_id = :r
                                         UNION SELECT item_id FROM ratings WHERE study_id = :s AND rater_id = :r) seen
                     JOIN item_loads l ON l.study_id = :s AND l.grp = :g AND l.item_id = seen.item_id
                    WHERE l.gold = 0 AND l.open = 1)""",
        {"s": study_id, "g": group, "r": rater_id}))
