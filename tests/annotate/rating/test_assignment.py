"""Invariants of the pure assignment policy, simulated in memory with hypothesis."""
from hypothesis import given, settings
from hypothesis import strategies as st

from fairval.annotate.rating.assignment import ItemLoad, avoided_templates, choose_item, gold_due


def loads(held: dict[str, dict[str, str]], positions: dict[str, int]) -> list[ItemLoad]:
    out = []
    for item, raters in held.items():
        groups: dict[str, int] = {}
        for g in raters.values():
            groups[g] = groups.get(g, 0) + 1
        out.append(ItemLoad(item, positions[item], len(raters), groups))
    return out


@settings(max_examples=150, deadline=None)
@given(n_items=st.integers(1, 8), target=st.integers(1, 4),
       arrivals=st.lists(st.tuples(st.integers(0, 9), st.sampled_from(["f", "m", "x"])), max_size=60),
       balanced=st.booleans())
def test_no_double_service_no_overrun(n_items, target, arrivals, balanced):
    positions = {f"i{k}": k for k in range(n_items)}
    held: dict[str, dict[str, str]] = {i: {} for i in positions}
    seen: dict[str, set[str]] = {}
    quota = {"f": -(-target // 2), "m": -(-target // 2)} if balanced else None
    group_of: dict[str, str] = {}
    for rater_no, group in arrivals:
        rater = f"r{rater_no}"
        group = group_of.setdefault(rater, group)
        chosen = choose_item(loads(held, positions), seen=seen.setdefault(rater, set()), target=target,
                             rater_group=group, quota=quota)
        if chosen is None:
            continue
        assert chosen not in seen[rater]
        seen[rater].add(chosen)
        held[chosen][rater] = group
        assert len(held[chosen]) <= target
        if quota:
            assert group in quota
            assert sum(g == group for g in held[chosen].values()) <= quota[group]


@settings(max_examples=100, deadline=None)
@given(n_items=st.integers(1, 8), target=st.integers(1, 6), balanced=st.booleans())
def test_every_item_reaches_its_target_when_enough_raters_come(n_items, target, balanced):
    positions = {f"i{k}": k for k in range(n_items)}
    held: dict[str, dict[str, str]] = {i: {} for i in positions}
    quota = {"f": -(-target // 2), "m": -(-target // 2)} if balanced else None
    for r in range(2 * target):                      # target raters of each group
        group = "fm"[r % 2]
        seen: set[str] = set()
        while (chosen := choose_item(loads(held, positions), seen=seen, target=target,
                                     rater_group=group, quota=quota)) is not None:
            seen.add(chosen)
            held[chosen][f"r{r}"] = group
    assert all(len(h) == target for h in held.values())


def test_started_items_first_then_the_random_order():
    """Depth-first: an item others started comes before one nobody holds, whatever their ranks; among
    each, the lowest rank (the study's seeded order), not the file's position."""
    items = [ItemLoad("a", 0, 0, rank=1), ItemLoad("b", 1, 2, rank=9), ItemLoad("c", 2, 1, rank=5),
             ItemLoad("d", 3, 0, rank=3)]
    assert choose_item(items, seen=set(), target=3) == "c"
    assert choose_item(items, seen={"c"}, target=3) == "b"
    assert choose_item(items, seen={"b", "c"}, target=3) == "a"
    assert choose_item(items, seen={"a", "b", "c"}, target=3) == "d"


def test_templates_avoided_the_last_and_those_at_their_cap():
    assert avoided_templates(["t1", "t2", "t1"], None) == {"t1"}
    assert avoided_templates(["t1", None], None) == set()
    assert avoided_templates(["t1", "t2"], 1) == {"t1", "t2"}
    assert avoided_templates(["t1", "t2", "t1"], 2) == {"t1"}
    assert avoided_templates(["t1"], None, others_exist=False) == set()
    items = [ItemLoad("a", 0, 1, rank=1, template="t1"), ItemLoad("b", 1, 0, rank=2, template="t2")]
    assert choose_item(items, seen=set(), target=3, avoid={"t1"}) == "b"
    assert choose_item(items, seen=set(), target=3, avoid={"t1", "t2"}) is None


def test_gold_share_stays_at_the_rate():
    gold = regular = 0
    for _ in range(100):
        if gold_due(regular, gold, 0.1):
            gold += 1
        else:
            regular += 1
    assert gold == 10
