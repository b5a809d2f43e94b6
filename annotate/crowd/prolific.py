"""The Prolific side of a study: what each participant is owed, bonuses paid once, submissions to review,
and returned participants' slots released at once.

A judgment is one item answered (all its questions). Base pay is the study's reward, which Prolific
pays on approval; the per-judgment pay goes out as a bonus. Nothing is approved or rejected by fairval:
it lists, the researcher decides.
"""
from __future__ import annotations

import csv
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from fairval.annotate.material.studies import load_study as _load_study
from fairval.annotate.material.studies import ready_loads
from fairval.annotate.outputs.files import atomic_output, output_format, spreadsheet_text
from fairval.annotate.results.numbers import load_study_data
from fairval.errors import OutcomeUnknown, PayOutcomeUnknown, ProlificError, StudyError
from fairval.store import Connection, audit, immediate, loads, payments

FAILED_CHECKS_TO_REJECT = 2          # Prolific: a rejection needs two failed attention checks


def owed(db: Connection, study_id: str) -> pd.DataFrame:
    """Per participant: judgments, those already paid, the bonus still owed, and base + bonus in all."""
    s = _load_study(db, study_id).settings
    paid = payments.paid_by_rater(db, study_id)
    rows = []
    for r in payments.judgments_by_rater(db, study_id):
        done, (paid_n, paid_amount) = int(r["judgments"]), paid.get(r["rater_id"], (0, 0.0))
        new = max(done - paid_n, 0)
        rows.append({"rater_id": r["rater_id"], "source": r["source"], "judgments": done, "paid_judgments": paid_n,
                     "bonus_paid": round(paid_amount, 2), "bonus_owed": round(new * s.pay_per_judgment, 2),
                     "total": round(s.base_pay + done * s.pay_per_judgment, 2)})
    return pd.DataFrame(rows, columns=["rater_id", "source", "judgments", "paid_judgments", "bonus_paid",
                                       "bonus_owed", "total"])


def cost_summary(db: Connection, study_id: str) -> dict:
    s = _load_study(db, study_id).settings
    table = owed(db, study_id)
    pay = float(table["total"].sum()) if len(table) else 0.0
    return {"participants": len(table), "judgments": int(table["judgments"].sum()) if len(table) else 0,
            "pay": round(pay, 2), "fee": round(pay * s.platform_fee, 2),
            "total": round(pay * (1 + s.platform_fee), 2), "currency": s.currency,
            "bonus_owed": round(float(table["bonus_owed"].sum()), 2) if len(table) else 0.0}


def write_bonuses(db: Connection, study_id: str, out: str | Path, *, now: float | None = None) -> tuple[int, float]:
    """Prolific's bulk-bonus lines (participant id, amount) for judgments not yet paid, written and
    recorded together: the file is in place before the payments are committed, and a failure to
    write leaves nothing recorded. Only participants who came from Prolific are paid this way."""
    out = Path(out)
    output_format(out, ("csv",))
    now = time.time() if now is None else now
    _require_pay(db, study_id)
    with immediate(db, study_id):
        rows = _bonuses_due(db, study_id)
        with atomic_output(out) as path, open(path, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            for rater, _, amount in rows:
                writer.writerow([spreadsheet_text(rater), f"{amount:.2f}"])
        payments.record_payments(db, study_id, f"bonus-{now:.6f}", rows, now)
        audit.record(db, "pay.bonus-file", study_id, at=now, file=out.name, participants=len(rows),
                     amount=round(sum(a for _, _, a in rows), 2))
    return _paid(rows)


def pay_bonuses(db: Connection, study_id: str, client, prolific_study: str, *,
                now: float | None = None, clock: Callable[[], float] = time.time) -> tuple[int, float]:
    """Pay the bonuses owed through Prolific's API, exactly once by construction.

    The batch is reserved first (its payments recorded, so no other run pays them), then set up on
    Prolific (nothing paid; the bulk id is kept), marked `sent`, and paid with one request that is
    never repeated. A definite refusal frees the batch for the next run; an answer lost after the pay
    request left marks it `unknown`, and no bonus is paid for the study until the researcher settles
    it (`fairval prolific settle`), because each pay request pays again."""
    now = clock() if now is None else now
    _require_pay(db, study_id)
    _require_settled(db, study_id)
    batch = f"api-{now:.6f}"
    with immediate(db, study_id):
        _require_settled(db, study_id)          # again under the lock: another run may have started
        rows = _bonuses_due(db, study_id)
        if not rows:
            return 0, 0.0
        payments.record_payments(db, study_id, batch, rows, now)
        payments.open_batch(db, study_id, batch, prolific_study, now)
    try:
        bulk_id = client.set_up_bonuses(prolific_study, [(r, a) for r, _, a in rows])
    except ProlificError:                       # nothing is paid by a set-up, whatever its answer
        with immediate(db, study_id):
            payments.forget_batch(db, study_id, batch)
        raise
    with immediate(db, study_id):
        payments.mark_batch(db, study_id, batch, "sent", clock(), bulk_id=bulk_id)
    try:
        client.pay_bulk_bonus(bulk_id)
    except OutcomeUnknown as e:
        with immediate(db, study_id):
            payments.mark_batch(db, study_id, batch, "unknown", clock(), detail=str(e))
        raise PayOutcomeUnknown(_unsettled_message(study_id, payments.unsettled_batches(db, study_id))) from None
    except ProlificError:
        with immediate(db, study_id):
            payments.forget_batch(db, study_id, batch)
        raise
    with immediate(db, study_id):
        payments.mark_batch(db, study_id, batch, "paid", clock())
        audit.record(db, "pay.bonus", study_id, batch=batch, prolific_study=prolific_study, participants=len(rows),
                     amount=round(sum(a for _, _, a in rows), 2))
    return _paid(rows)




def unsettled(db: Connection, study_id: str) -> list[dict]:
    """The study's API bonus batches not known to be paid (see `settle`)."""
    _load_study(db, study_id)
    return payments.unsettled_batches(db, study_id)


def settle(db: Connection, study_id: str, batch: str, *, paid: bool, now: float | None = None) -> dict:
    """The researcher's word on a batch whose outcome fairval could not know: paid (kept as paid) or not
    paid (freed, so the next run pays those judgments)."""
    now = time.time() if now is None else now
    with immediate(db, study_id):
        found = {b["batch"]: b for b in unsettled(db, study_id)}
        if batch not in found:
            raise StudyError(f"study {study_id!r} has no unsettled bonus batch {batch!r}"
                             + (f"; it has {', '.join(found)}" if found else "; every batch is settled"))
        if paid:
            payments.mark_batch(db, study_id, batch, "paid", now, detail="settled by the researcher as paid")
        else:
            payments.forget_batch(db, study_id, batch)
        audit.record(db, "pay.settle", study_id, at=now, batch=batch, paid=paid)
    return found[batch]


def _require_settled(db: Connection, study_id: str) -> None:
    batches = payments.unsettled_batches(db, study_id)
    if batches:
        raise PayOutcomeUnknown(_unsettled_message(study_id, batches))


def _unsettled_message(study_id: str, batches: list[dict]) -> str:
    b = batches[0]
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(b["updated_at"]))
    who = ", ".join(f"{r} {a:.2f}" for r, a in b["participants"][:5]) + (" …" if len(b["participants"]) > 5 else "")
    if b["state"] in ("sent", "unknown"):
        what = (f"bonus batch {b['batch']} (Prolific bulk bonus {b['bulk_id']}, {len(b['participants'])} "
                f"participant(s), {b['total']:.2f} in all: {who}) was sent to Prolific on {when} and its answer "
                "was lost, so it may or may not have been paid")
    else:
        what = (f"bonus batch {b['batch']} ({len(b['participants'])} participant(s), {b['total']:.2f}) was "
                f"reserved on {when} by a run that stopped before paying, or is still running")
    return (f"{what}. No bonus is paid for study {study_id!r} until it is settled: check on Prolific (the "
            f"study {b['platform_study_id']}, each participant's bonus payments) whether these bonuses arrived, "
            f"then run `fairval prolific settle {study_id} {b['batch']} --paid` or `--not-paid`")


def _require_pay(db: Connection, study_id: str) -> None:
    if _load_study(db, study_id).settings.pay_per_judgment <= 0:
        raise StudyError(f"study {study_id!r} has no pay per judgment; set it first "
                         f"(fairval study set {study_id} pay_per_judgment=0.50)")


def _bonuses_due(db: Connection, study_id: str) -> list[tuple[str, int, float]]:
    """Inside the caller's write transaction: (participant, judgments not yet paid, bonus) for every
    participant from Prolific who is owed one."""
    table = owed(db, study_id)
    due = table[(table["source"] == "prolific") & (table["bonus_owed"] > 0)]
    return [(r.rater_id, int(r.judgments - r.paid_judgments), float(r.bonus_owed)) for r in due.itertuples()]


def _paid(rows: list[tuple[str, int, float]]) -> tuple[int, float]:
    return len(rows), round(sum(amount for _, _, amount in rows), 2)


def sync_submissions(db: Connection, study_id: str, client, prolific_study: str) -> dict:
    """Fetch submission statuses; participants who RETURNED or TIMED-OUT give their slots back now."""
    submissions = client.submissions(prolific_study)
    gone = sorted({s["participant_id"] for s in submissions if s.get("status") in ("RETURNED", "TIMED-OUT")})
    counts: dict[str, int] = {}
    for s in submissions:
        counts[s.get("status", "?")] = counts.get(s.get("status", "?"), 0) + 1
    released = release_returned(db, study_id, gone)
    audit.record(db, "prolific.sync", study_id, prolific_study=prolific_study, submissions=len(submissions),
                 returned=len(gone), released=released)
    return {"statuses": counts, "released_slots": released, "returned": gone}


def approve(client, prolific_study: str, participants: list[str], *, db: Connection | None = None,
            study_id: str | None = None) -> list[str]:
    """Approve the submissions of the participants the researcher chose; returns those approved (each
    recorded in the audit trail when a database is given)."""
    wanted = set(participants)
    done = []
    for s in client.submissions(prolific_study):
        if s["participant_id"] in wanted and s.get("status") == "AWAITING REVIEW":
            client.approve(s["id"])
            done.append(s["participant_id"])
            if db is not None:
                audit.record(db, "pay.approve", study_id, participant=s["participant_id"], submission=s["id"],
                             prolific_study=prolific_study)
    return done


def review(db: Connection, study_id: str) -> pd.DataFrame:
    """Per participant a suggestion and its reason: approve; may reject (two or more failed attention
    checks, Prolific's rule); look again (too fast, flagged by quality); return (nothing answered)."""
    data = load_study_data(db, study_id)               # the quality flags the Results page shows
    quality = {q.rater_id: q for q in data.quality}
    failed = data.gold_misses                          # canonical: a flipped pair is marked by its meaning
    rows = []
    for r in payments.judgments_by_rater(db, study_id):
        rater = r["rater_id"]
        q, misses = quality.get(rater), failed.get(rater, 0)
        if misses >= FAILED_CHECKS_TO_REJECT:
            action, reason = "may reject", f"failed {misses} attention checks"
        elif q is not None and q.flags:
            action, reason = "look again", "; ".join(q.flags)
        else:
            action, reason = "approve", f"{r['judgments']} judgments" + (f", {misses} attention check missed" if misses else "")
        rows.append({"rater_id": rater, "session": r["platform_session_id"], "judgments": int(r["judgments"]),
                     "suggestion": action, "reason": reason})
    return pd.DataFrame(rows, columns=["rater_id", "session", "judgments", "suggestion", "reason"])


def release_returned(db: Connection, study_id: str, participant_ids: list[str]) -> int:
    """Participants who returned the study or timed out on Prolific: their open slots go back at once."""
    study = _load_study(db, study_id)
    released = 0
    with immediate(db, study_id):
        rules = ready_loads(db, study)
        for pid in participant_ids:
            released += loads.release_rater(db, study_id, pid, rules)
    return released
