"""The assignment policy, as pure code: which item a rater gets next, or none.

Rules: never an item the rater has seen; never beyond an item's target of raters (answered plus
unexpired slots held); with balance, never beyond the rater's group quota on that item; the
least-taken items first, import order breaking ties; gold items when one is due.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from fairval.store.loads import is_open          # the one rule of "open", shared with the load rows


@dataclass(frozen=True, slots=True)
class ItemLoad:
    item_id: str
    position: int
    taken: int                                        # distinct raters answered or holding a slot
    taken_by_group: Mapping[str, int] = field(default_factory=dict)
    gold: bool = False


def gold_due(answered_regular: int, answered_gold: int, gold_rate: float) -> bool:
    """Serve a gold item when doing so keeps the gold share at or under the target rate.

    With rate 0.25 the 4th, 8th, 12th … item is gold: never the first, so a rater settles in.
    """
    if gold_rate <= 0:
        return False
    return (answered_gold + 1) <= gold_rate * (answered_regular + answered_gold + 1) + 1e-9


def choose_item(loads: Iterable[ItemLoad], *, seen: set[str], target: int,
                rater_group: str | None = None, quota: Mapping[str, int] | None = None,
                want_gold: bool = False) -> str | None:
    loads = [it for it in loads if it.item_id not in seen]
    if want_gold:
        gold = [it for it in loads if it.gold]
        if gold:
            return min(gold, key=lambda it: (it.taken, it.position)).item_id
    if quota is not None and rater_group not in quota:
        return None
    cap = quota[rater_group] if quota is not None else None
    open_items = [it for it in loads if not it.gold and is_open(
        gold=False, taken=it.taken, target=target, taken_group=it.taken_by_group.get(rater_group, 0), cap=cap)]
    if not open_items:
        return None
    return min(open_items, key=lambda it: (it.taken, it.position)).item_id
