"""The stopping rule's running interval under the live adaptive design (annotate.adaptive.next_pair): H's
anytime interval over the decided prefix (annotate.adaptive.estimate.decided_prefix: the decided pairs in
decision order up to the first kept pair not complete), kept as the prefix grows. It grows when an answer
completes the kept pair it waits for, or when pairs left to the judge are decided past its end; each
pair it takes in is one step of analysis.running_adaptive (a pair not kept costs no rating read), so
neither a Submit nor a serve costs more as the study grows. The state's inputs are those the full
analysis (harm.ppi.cs of `fairval analyze --json`) gives the same functions: the main judge, m over the
design's pairs, the envelope, the planned pairs, each pair's chance and least chance on record (the
state is built from the whole study by annotate.crowd.stopping.rebuilt_interval)."""
from __future__ import annotations

from fairval.analysis import running_adaptive
from fairval.annotate.material.pairs import pair_score, the_scored_question
from fairval.annotate.material.studies import LoadedStudy
from fairval.errors import StudyError
from fairval.store import Connection
from fairval.store import running as running_store

CHUNK = 32                  # decided pairs read at a time past the prefix's end


def advance(db: Connection, study: LoadedStudy, state: dict) -> dict | None:
    """Inside the caller's write transaction: the state with every pair the prefix can now take in (None
    when it takes none in: nothing to write)."""
    basis = state["basis"]
    if basis["judge_mean"] is None:
        return None
    question = the_scored_question(study.task)
    sequence, place, moved = state["sequence"], state["next"], False
    while True:
        rows = running_store.decided_from(db, study.study_id, place, CHUNK)
        for row in rows:
            human = None
            if not row["decided"]:
                return _moved(state, sequence, place, moved)
            if row["kept"]:
                answers = running_store.first_answers(db, study.study_id, row["item_id"], question.id,
                                                      basis["raters_per_item"])
                if len(answers) < basis["raters_per_item"]:
                    return _moved(state, sequence, place, moved)       # the kept pair the prefix waits for
                human = sum(pair_score(question, a) for a in answers) / len(answers)
            judge = running_store.judge_score(db, study.study_id, row["item_id"], basis["judge"])
            if judge is None:                   # a pair is decided on the judge's score: it has one
                raise StudyError(f"pair {row['item_id']!r} was decided without a score of {basis['judge']!r}")
            least = basis["lowest"] if row["least"] is None else row["least"]
            sequence = running_adaptive.step(sequence, kept=bool(row["kept"]), human=human, judge=float(judge),
                                             chance=float(row["chance"]), least=float(least))
            place, moved = int(row["decision_order"]) + 1, True
        if len(rows) < CHUNK:
            return _moved(state, sequence, place, moved)


def _moved(state: dict, sequence: dict, place: int, moved: bool) -> dict | None:
    return {**state, "sequence": sequence, "next": place} if moved else None


def save(db: Connection, study_id: str, state: dict) -> None:
    found = running_adaptive.interval(state["sequence"])
    running_store.save(db, study_id, state, n=found.n_pairs_complete, value=found.value,
                      ci=None if found.ci is None else found.ci.to_list())
