"""The one interval type of the numbers: its ends, its confidence level, and its guarantee where that is
less than (or other than) its level says. It reads as the pair (low, high) too, so `low, high = ci` and
`ci[0]` work, and prints in `analyze --json` as [low, high], as the intervals always have."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

LEVEL = 0.95                # every interval of the numbers is a 95% one (SPEC §5)


@dataclass(frozen=True)
class Interval:
    low: float | None
    high: float | None
    level: float = LEVEL
    guarantee: str | None = None        # None: it holds at its level as its method says (the block's `valid` else)

    @classmethod
    def of(cls, ends: Interval | Sequence[float | None] | None, *, level: float = LEVEL,
           guarantee: str | None = None) -> Interval | None:
        """The interval with these ends (None: no interval); an Interval is kept as it is."""
        if ends is None or isinstance(ends, Interval):
            return ends
        low, high = ends
        return cls(None if low is None else float(low), None if high is None else float(high), level, guarantee)

    @property
    def width(self) -> float | None:
        return None if self.low is None or self.high is None else self.high - self.low

    def __iter__(self) -> Iterator[float | None]:
        return iter((self.low, self.high))

    def __getitem__(self, index: int) -> float | None:
        return (self.low, self.high)[index]

    def __len__(self) -> int:
        return 2

    def to_list(self) -> list[float | None]:
        """Its plain form in `analyze --json`."""
        return [self.low, self.high]
