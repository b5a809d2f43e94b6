"""How a pair study's pairs go to people: the one place a study's design is read from what fairval recorded
(`fairval study sample`, `study set design=adaptive`), and the one place its kinds are put into words.

The record is the system's, never the researcher's (see studies.Recorded): a Design is built once from it
(Design.of) and every number, page and sentence asks the Design, not the record."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from fairval.analysis.active import LIVE_FLOORS, PILOT_MIN_PAIRS, prior_floor

Kind = Literal["none", "uniform", "stratified", "active", "adaptive", "escalate"]
KINDS: tuple[Kind, ...] = ("none", "uniform", "stratified", "active", "adaptive", "escalate")


@dataclass(frozen=True)
class Words:
    """One kind in words: how its pairs were drawn (`drawn`), the estimator's name (`method`), what chose
    people's pairs when the judge's uncertainty did (`chosen_by`), how to ask for it, and its citation."""
    drawn: str
    method: str = "PPI++"
    chosen_by: str | None = None
    asked_by: str = ""
    cite: str | None = None


WORDS: dict[Kind, Words] = {
    "none": Words("as raters came, not drawn"),
    "uniform": Words("uniformly", asked_by="`study sample --n`"),
    "stratified": Words("by group pair", "a draw by group pair, PPI++ weighted by 1/π",
                        asked_by="`study sample --by-group-pair`"),
    "active": Words("where the judge was least sure", "active sampling, PPI++ weighted by 1/π", "an active draw",
                    "`study sample --active`", "zrnic2024"),
    "adaptive": Words("by the adaptive design, from the judge's uncertainty", chosen_by="the adaptive design",
                      cite="zrnic2024"),
    "escalate": Words("below a judge threshold", chosen_by="trust or escalate", asked_by="`study sample --escalate`",
                      cite="jung2025"),
}


@dataclass(frozen=True)
class Design:
    """A study's design. `recorded`: the draw as fairval stored it ({} for none), for the functions that read
    its figures (budget, floors, strata, the pilot)."""
    kind: Kind = "none"
    recorded: dict = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, record: dict | None) -> Design:
        """The design a stored record describes: none without one; a draw that names no design is uniform."""
        if not record:
            return cls()
        kind = record.get("design", "uniform")
        if kind not in KINDS:
            raise ValueError(f"unknown design {kind!r} in the study's record")
        return cls(kind, dict(record))

    @classmethod
    def named(cls, kind: str | None) -> Design:
        """The kind a numbers block names (`harm.ppi.design`), without its record: for its words."""
        return cls(kind if kind in KINDS else "none")

    @property
    def drawn(self) -> bool:
        """Whether fairval chose the pairs people rate (any design but none)."""
        return self.kind != "none"

    @property
    def weighted(self) -> bool:
        """A one-off draw whose recorded chances weight each rated pair by 1/π (the adaptive design's
        weights are the chances at each decision, adaptive.estimate)."""
        return self.kind in ("active", "stratified")

    @property
    def chosen_by_judge(self) -> bool:
        """People's pairs were chosen by the judge's uncertainty: the agreement numbers describe those pairs."""
        return self.kind in ("active", "adaptive", "escalate")

    @property
    def per_pair_chances(self) -> bool:
        """Each pair had its own chance (not one per group pair): no stratified or allocation numbers then."""
        return self.kind in ("active", "adaptive")

    @property
    def adaptive(self) -> bool:
        return self.kind == "adaptive"

    @property
    def escalate(self) -> bool:
        return self.kind == "escalate"

    @property
    def words(self) -> Words:
        return WORDS[self.kind]

    @property
    def judge(self) -> str | None:
        return self.recorded.get("judge")

    @property
    def planned(self) -> int | None:
        """The pairs people are planned to rate: the budget, else the drawn n (None without a design)."""
        return self.recorded.get("budget") or self.recorded.get("n")

    def by_group_pair(self) -> str:
        """A draw by group pair in words: "Asian vs White 3 of 10, Black vs White 9 of 30, …"."""
        return ", ".join(f"{g} {s['drawn']:,} of {s['pairs']:,}" for g, s in (self.recorded.get("strata") or {}).items())

    @property
    def sentence(self) -> str | None:
        """How the study's pairs go to people (`study show`, Manage), or None before any design is set.
        The adaptive design's running figures are adaptive.next_pair.design_sentence's."""
        r = self.recorded
        if self.kind == "none":
            return None
        if self.kind == "escalate":
            return (f"trust or escalate: {r['n']:,} of {r['of']:,} pairs to people, those where the confidence "
                    f"of judge {r['judge']!r} is below {r['threshold']:.3f} (found on "
                    f"{r['pilot']['study']!r} for {r['agreement']:.0%} agreement at risk {r['risk']}); it "
                    f"decides the other {r['trusted']:,} alone")
        if self.kind == "adaptive":
            return (f"adaptive: about {r['budget']:,} of {r['of']:,} pairs to people, each decided when a rater "
                    f"needs one, with a chance that grows with the uncertainty of judge {r['judge']!r}, mixed with "
                    f"the uniform chance: {prior_floor(tuple(r.get('floors') or LIVE_FLOORS)):.0%} uniform until "
                    f"{PILOT_MIN_PAIRS} pairs people rated are complete, then "
                    + ("the mix the answers so far show narrows H's interval most" if r["budget"] >= PILOT_MIN_PAIRS else
                       f"still (a budget under {PILOT_MIN_PAIRS} never gets there)")
                    + f" (seed {r['seed']})")
        how = self.words.drawn + (f" ({self.by_group_pair()})" if self.kind == "stratified" else "")
        return f"{r.get('n', '?')} of {r.get('of', '?')} pairs drawn {how} for people (seed {r.get('seed')})"

    @property
    def not_uniform(self) -> str | None:
        """Why the rated pairs are not a uniform random sample of all, in words; None if they are one (or
        were not drawn: a guarantee that needs a uniform sample says so itself)."""
        if self.kind in ("none", "uniform"):
            return None
        w = self.words
        return w.drawn + (f" ({w.asked_by})" if w.asked_by else "")
