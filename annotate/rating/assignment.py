"""The assignment policy, as pure code: which item a rater gets next, or none.

Rules: never an item the rater has seen; never beyond an item's target of raters (answered plus
unexpired slots held); with balance, never beyond the rater's group quota on that item; gold items
when one is due (the least-taken first). Regular items go depth-first in the study's seeded random
order (`rank`): an item others have started comes before one nobody holds, and among each the lowest
rank first. So the open window stays as small as the raters present allow (a new item opens only when
no started one is open to the rater), and items complete in an order unrelated to their content or
the file's order: the complete items are a random prefix of the study's.

Templates: never two fills of one template in a row (while the study has another template), and at
most `max_fills` fills of one template per rater (None: no cap); see avoided_templates. Where the order's
next item would leave a rater fewer items than they could still get (their items left all fills of the
template just had), the template with most fills left for them goes first (reachable, template_to_spread).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from fairval.store.loads import is_open  # the one rule of "open", shared with the load rows


@dataclass(frozen=True, slots=True)
class ItemLoad:
    item_id: str
    position: int
    taken: int                                        # distinct raters answered or holding a slot
    taken_by_group: Mapping[str, int] = field(default_factory=dict)
    gold: bool = False
    rank: int = 0                                     # place in the study's seeded random order
    template: str | None = None                       # the template it fills (None: its own)


def gold_due(answered_regular: int, answered_gold: int, gold_rate: float) -> bool:
    """Serve a gold item when doing so keeps the gold share at or under the target rate.

    With rate 0.25 the 4th, 8th, 12th … item is gold: never the first, so a rater settles in.
    """
    if gold_rate <= 0:
        return False
    return (answered_gold + 1) <= gold_rate * (answered_regular + answered_gold + 1) + 1e-9


def last_template(served: Sequence[str | None]) -> str | None:
    """The template of the last item served that has one."""
    return next((t for t in reversed(served) if t is not None), None)


def avoided_templates(served: Sequence[str | None], max_fills: int | None, *, others_exist: bool = True) -> set[str]:
    """Templates this rater may not get next, from the templates of what they were served, in order: the
    last one (a second fill in a row shows what varies; unless the study has no other template,
    `others_exist`), and any they have had `max_fills` fills of. An item of no template (an attention
    check, say) is passed over in finding the last: with two templates, one fill of each, a check, then a
    second fill of the one before the check would leave the rater's last items all of one template."""
    last = last_template(served)
    avoid = {last} if last is not None and others_exist else set()
    if max_fills is not None:
        avoid |= {t for t, n in Counter(t for t in served if t is not None).items() if n >= max_fills}
    return avoid


def reachable(fills: Mapping[str, int], last: str | None) -> int:
    """The most fills a rater can still be served, never two of one template in a row, from `fills`
    (their fills open per template, each under its cap) after a fill of `last`: the largest template's
    fills need another template's between them, and cannot come first if it is `last`. Items of no
    template come on top (they neither count as a template nor part two fills: see avoided_templates)."""
    total = sum(fills.values())
    if not total:
        return 0
    top, most = max(fills.items(), key=lambda kv: (kv[1], kv[0] != last))
    return min(total, 2 * (total - most) + (0 if top == last else 1))


def template_to_spread(fills: Mapping[str, int], last: str | None, chosen: str | None) -> str | None:
    """The template to serve in place of a fill of `chosen` (the order's next), or None to keep it: when
    taking `chosen` would leave fewer fills reachable than there are now, the template with most fills
    left (not `last`) goes first, the greedy order that reaches the most."""
    if chosen is None or not fills:
        return None
    after = {**fills, chosen: fills.get(chosen, 0) - 1}
    if 1 + reachable(after, chosen) >= reachable(fills, last):
        return None
    allowed = [(n, t) for t, n in fills.items() if n > 0 and t != last]
    return max(allowed)[1] if allowed else None


def choose_item(loads: Iterable[ItemLoad], *, seen: set[str], target: int,
                rater_group: str | None = None, quota: Mapping[str, int] | None = None,
                want_gold: bool = False, avoid: set[str] | frozenset[str] = frozenset()) -> str | None:
    loads = [it for it in loads if it.item_id not in seen and (it.template is None or it.template not in avoid)]
    if want_gold:
        gold = [it for it in loads if it.gold]
        if gold:
            return min(gold, key=lambda it: (it.taken, it.position)).item_id
    if quota is not None and rater_group not in quota:
        return None
    cap = quota[rater_group] if quota is not None and rater_group is not None else None
    open_items = [it for it in loads if not it.gold and is_open(
        gold=False, taken=it.taken, target=target, cap=cap,
        taken_group=it.taken_by_group.get(rater_group, 0) if rater_group is not None else 0)]
    if not open_items:
        return None
    return min(open_items, key=lambda it: (it.taken == 0, it.rank, it.position)).item_id
