"""fairval's Python API: a database, its studies, and each study's numbers, ratings and items.

A thin layer over the same functions the command line calls, so a notebook gets what `fairval analyze
--json` prints (StudyNumbers.to_dict()), what `export-ratings` writes, and the same refusals
(FairvalError). pandas and scipy load with the first call that needs them, not with `import fairval`.
"""
from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from fairval.annotate.results import BOOTSTRAP_DRAWS
from fairval.errors import StudyError

if TYPE_CHECKING:
    import pandas as pd

    from fairval.annotate.results.result import StudyNumbers


class Database:
    """A fairval database: a SQLite file (created, with its schema, when missing) or a PostgreSQL URL.
    Use it as a context manager, or call close(), to release the connection."""

    def __init__(self, location: str | Path):
        from fairval.store import open_db
        self.location = str(location)
        self._db = open_db(location)

    def studies(self) -> list[str]:
        """The names of the studies in this database."""
        from fairval.annotate.material.studies import list_study_names
        return list_study_names(self._db)

    def study(self, name: str) -> Study:
        """One study by name; a FairvalError names the studies there are when it does not exist."""
        names = self.studies()
        if name not in names:
            raise StudyError(f"no study {name!r} in {self.location}; it has "
                             + (", ".join(names) if names else "none (create one with `fairval study create`)"))
        return Study(self, name)

    def create_study(self, name: str, task: str, **settings) -> Study:
        """A new study on a preset task (`fairval study create NAME --task TASK`), with its settings."""
        from fairval.annotate.material.studies import create_study
        create_study(self._db, name, task, **settings)
        return Study(self, name)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"fairval.Database({self.location!r})"


class Study:
    """One study of a Database (get it with `db.study(NAME)`)."""

    def __init__(self, database: Database, name: str):
        self.database, self.name = database, name

    def analyze(self, model: str | None = None, exclude_flagged: bool = False,
                bootstrap: int = BOOTSTRAP_DRAWS) -> StudyNumbers:
        """The study's numbers, as `fairval analyze NAME [--model M] [--exclude-flagged] [--bootstrap N]`
        computes them: a frozen StudyNumbers whose to_dict() is what `analyze --json` prints."""
        from fairval.annotate.results.numbers import study_numbers
        if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 0:
            raise StudyError(f"bootstrap must be a whole number of at least 0, not {bootstrap!r}")
        return study_numbers(self.database._db, self.name, exclude_flagged=exclude_flagged, n_boot=bootstrap,
                             model=model)

    def ratings(self, exclude_flagged: bool = False) -> pd.DataFrame:
        """Every rating, one row each: the columns `fairval export-ratings` writes."""
        from fairval.annotate.outputs.export import ratings_table
        return ratings_table(self.database._db, self.name, exclude_flagged=exclude_flagged)

    def items(self) -> pd.DataFrame:
        """Every item, one row each: item_id, the fields as imported, then gold, practice and judge_only (an
        import's `_gold`/`_practice` marks are those two columns, not fields)."""
        import pandas as pd

        from fairval.store import items as item_store
        stored = item_store.items_frame(self.database._db, self.name)
        fields = pd.DataFrame(list(stored["data"]), index=stored.index)
        # the marks an import reads (`_gold`, `_practice`) are the gold and practice columns already
        fields = fields.drop(columns=[c for c in ("item_id", "_gold", "_practice") if c in fields])
        flags = stored[["gold", "practice", "judge_only"]]
        return pd.concat([stored[["item_id"]], fields, flags], axis=1)

    def import_items(self, source: str | Path | Iterable[dict], label_map: dict[str, str] | None = None) -> int:
        """Items from a .jsonl/.csv file or an iterable of dicts, all or nothing; returns how many were new.
        label_map: {label: answer} read before fairval's own rule (docs/formats.md, "Labels and answers");
        what was matched is kept in the study's audit trail. What the import must say (gold items a gold
        rate of 0 never serves) comes as a UserWarning."""
        import warnings

        from fairval.annotate.material.importers import import_items
        with _as_label_map():
            result = import_items(self.database._db, self.name, source, label_map=label_map)
        for notice in result.notices:
            warnings.warn(notice, UserWarning, stacklevel=2)
        return result.written

    def import_ratings(self, source: str | Path | Iterable[dict], label_map: dict[str, str] | None = None) -> int:
        """Ratings collected elsewhere (item_id, rater_id, question, value[, flipped, seconds, rater_*]);
        label_map as for import_items."""
        from fairval.annotate.material.importers import import_ratings
        with _as_label_map():
            return import_ratings(self.database._db, self.name, source, label_map=label_map).written

    def import_lmra(self, source: str | Path | Iterable[dict]) -> int:
        """The judge's scores: item_id, model and score, or p_a, p_b, p_c, q_a, q_b, q_c."""
        from fairval.annotate.material.importers import import_lmra
        return import_lmra(self.database._db, self.name, source).written

    def sample(self, n: int, seed: int) -> list[str]:
        """`fairval study sample NAME --n N --seed S`: draw the n pairs people rate uniformly, before anyone
        is served; the others are left to the judge. Returns the drawn item ids."""
        from fairval.annotate.rating.sampling import draw_human_sample
        return draw_human_sample(self.database._db, self.name, n, seed)

    def sample_by_group_pair(self, n: int, seed: int, *, pilot: str | None = None) -> dict:
        """`study sample --n N --by-group-pair --seed S [--pilot STUDY]`: n pairs drawn by group pair, each
        group pair's share by its size (× its spread on the pilot). Returns `kept` and `sample`."""
        from fairval.annotate.rating.sampling import draw_stratified_sample
        from fairval.annotate.results.pilot import pilot_spreads
        db = self.database._db
        return draw_stratified_sample(db, self.name, n, seed,
                                      spreads=(lambda judge: pilot_spreads(db, pilot, judge)) if pilot else None)

    def sample_active(self, budget: int, seed: int, *, model: str | None = None, pilot: str | None = None) -> dict:
        """`study sample --active --budget N --seed S [--model M] [--pilot STUDY]`: each pair drawn with a
        recorded chance from the judge's uncertainty. Returns `kept` (the ids) and `sample` (the design)."""
        from fairval.annotate.rating.sampling import draw_active_sample
        from fairval.annotate.results.pilot import pilot_evidence
        db = self.database._db
        return draw_active_sample(db, self.name, budget, seed, model=model, pilot=pilot_evidence(db, pilot, budget))

    def escalate(self, pilot: str, *, agreement: float = 0.9, risk: float = 0.05, model: str | None = None) -> dict:
        """`study sample --escalate --pilot STUDY`: people rate only the pairs below the judge-confidence
        threshold found on the pilot; the judge decides the rest. Returns `kept` and `sample`."""
        from fairval.annotate.judge.trust import escalate_sample
        return escalate_sample(self.database._db, self.name, pilot, agreement=agreement, risk=risk, model=model)

    def trust(self, *, agreement: float = 0.9, risk: float = 0.05, model: str | None = None) -> dict:
        """`fairval judge trust NAME --json`: the judge-confidence threshold found on this study's rated pairs."""
        from fairval.annotate.judge.trust import judge_trust
        return judge_trust(self.database._db, self.name, agreement=agreement, risk=risk, model=model)

    def set_adaptive(self, budget: int, *, model: str | None = None) -> dict:
        """`fairval study set NAME design=adaptive budget=N`: the live adaptive design, its order drawn from
        the study's seed. Returns the design (budget, of, judge)."""
        from fairval.annotate.adaptive import next_pair as adaptive
        if isinstance(budget, bool) or not isinstance(budget, int):
            raise StudyError(f"the budget is a whole number of pairs, not {budget!r}")
        return adaptive.start(self.database._db, self.name, budget, model=model)

    def __repr__(self) -> str:
        return f"fairval.Study({self.name!r} in {self.database.location!r})"


@contextlib.contextmanager
def _as_label_map():
    """A refused label says the fix as the command line takes it (`--map black=Black+GENDER`); in Python the
    same map is the label_map argument, so the line says that instead (the same error, its file and line kept)."""
    from fairval.errors import ImportProblem, LabelMismatch
    try:
        yield
    except (ImportProblem, LabelMismatch) as e:
        said = re.sub(r"--map (\S+?)=(\S+?)(?=[\s;,)]|$)", lambda m: f"label_map={{{m[1]!r}: {m[2]!r}}}", str(e))
        if said == str(e):
            raise
        told = type(e).__new__(type(e))          # the same error, its path, line and field, said for Python
        told.__dict__.update(e.__dict__)
        told.args = (said.replace("--map", "label_map"),)
        raise told from None
