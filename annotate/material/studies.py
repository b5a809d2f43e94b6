"""Study settings: validated once here, stored as JSON by store/."""
from __future__ import annotations

import dataclasses
import json
import re
import secrets
import time
from dataclasses import dataclass
from functools import cached_property

from fairval.annotate.material.design import Design
from fairval.annotate.material.setting_help import RECORDED
from fairval.annotate.material.study_settings import DEFAULT_CONSENTS, REFUSED, StudySettings, default_consent
from fairval.annotate.material.tasks import PRESETS, Task, get_task
from fairval.errors import StoreError, StudyError, TaskError
from fairval.store import Connection, audit, immediate, loads
from fairval.store import items as item_store
from fairval.store import studies as study_store
from fairval.store.loads import LoadRules

STUDY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Recorded:
    """The state fairval writes itself, stored beside the settings but never set by a researcher:
    the pairs drawn for people (`fairval study sample`, the adaptive design) and the study's own stop."""
    human_sample: dict | None = None            # {n, of, seed[, design …]}: read it through LoadedStudy.design
    stopped: dict | None = None                 # when the study stopped itself: when, why, the interval

    @classmethod
    def from_stored(cls, stored: dict) -> Recorded:
        return cls(stored.get("human_sample") or None, stored.get("stopped") or None)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def drawn(self) -> dict:
        """The draw, for code that runs only on a study that has one (the adaptive design's mix and stop)."""
        if self.human_sample is None:
            raise StudyError("this study has no pairs drawn for people (`fairval study sample`)")
        return self.human_sample


@dataclass(frozen=True)
class LoadedStudy:
    study_id: str
    task: Task
    settings: StudySettings
    status: str
    definition: dict | None = None      # the task as declared data, for studies not on a preset
    recorded: Recorded = Recorded()

    @cached_property
    def design(self) -> Design:
        """How its pairs go to people, built once from the record."""
        return Design.of(self.recorded.human_sample)

    def stored_settings(self) -> dict:
        """The settings and the record, as they are stored and shown (`study show --json`, the report)."""
        return {**self.settings.to_dict(), **self.recorded.to_dict()}

    def judge(self, models, asked: str | None = None) -> str | None:
        """The judge its numbers and designs use: the one asked for, else the study's main_judge, else the
        first of `models` (the judges with scores) by name; None when there is none. The caller says what
        is wrong when the answer has no scores."""
        return asked or self.settings.main_judge or min(models, default=None)


def create_study(db: Connection, name: str, task: str | None = None, *, task_definition: dict | None = None,
                 **settings) -> LoadedStudy:
    """A study on a preset task, or on a task declared as data (`task_definition`, see Task.from_dict)."""
    if not STUDY_NAME.match(name):
        raise StudyError(f"study name {name!r} must be 1-64 letters, digits, '-', '_' or '.', "
                         "starting with a letter or digit")
    if task_definition is not None:
        try:
            task = Task.from_dict(task_definition).name
        except (TaskError, KeyError, TypeError) as e:
            raise StudyError(f"task definition: {e}") from None
    elif task not in PRESETS:
        raise StudyError(f"unknown task {task!r}; choose one of {', '.join(PRESETS)}")
    if settings.get("consent_text") in (None, *DEFAULT_CONSENTS):     # Manage's form sends the default back
        settings["consent_text"] = default_consent(task)
    settings.setdefault("seed", secrets.randbelow(2**31))
    settings.setdefault("completion_code", secrets.token_hex(4).upper())
    checked = StudySettings.from_dict(settings)
    checked.refuse_unanswerable_groups()
    stored = checked.to_dict()
    if task_definition is not None:
        stored["task_definition"] = task_definition
    try:
        with immediate(db, name):
            study_store.insert_study(db, name, task, stored)
            audit.record(db, "study.create", name, task=task, settings=settings)
    except StoreError as e:
        raise StudyError(str(e)) from None
    return load_study(db, name)


def _stored_row(db: Connection, name: str) -> dict:
    row = study_store.get_study_row(db, name)
    if row is None:
        known = [s["study_id"] for s in study_store.list_studies(db)]
        raise StudyError(f"no study named {name!r}" +
                         (f"; studies here: {', '.join(known)}" if known else "; none exist yet"))
    return row


def load_study(db: Connection, name: str) -> LoadedStudy:
    """The study as stored now: its version is read every time (one short row by key; the store draws a new
    one with every change to the study's row), so a pause or a settings change is seen by the very next
    call; the row itself is read and parsed (the settings validated, the task built) again only when the
    version differs from the one last parsed for that name (issue 58)."""
    held = _PARSED.get(name)
    # version 0: a row written without the store (no version drawn) is never taken for another
    if held is not None and held[0] and held[0] == study_store.get_version(db, name):
        return held[1]
    row = _stored_row(db, name)
    study = _parse(row["study_id"], row["task"], json.loads(row["settings"]), row["status"])
    _PARSED[row["study_id"]] = (row["version"], study)
    return study


# the last study parsed under each name, with the version of the row it came from; a LoadedStudy is frozen,
# so every session of every worker thread can share it
_PARSED: dict[str, tuple[int, LoadedStudy]] = {}


def _parse(study_id: str, task_name: str, raw: dict, status: str) -> LoadedStudy:
    definition = raw.get("task_definition")
    task = Task.from_dict(definition) if definition else get_task(task_name)
    researcher = {k: v for k, v in raw.items() if k not in RECORDED}
    return LoadedStudy(study_id, task, StudySettings.from_dict(researcher), status, definition, Recorded.from_stored(raw))


def study_status(db: Connection, name: str) -> str:
    """open, paused or closed, as stored now (the status alone read: one short row)."""
    status = study_store.get_status(db, name)
    return _stored_row(db, name)["status"] if status is None else status    # (none: the error names the studies)


def configure_study(db: Connection, name: str, *, status: str | None = None, now: float | None = None,
                    **changes) -> LoadedStudy:
    """Change settings (validated as a whole) or the status: open, paused or closed.

    Item loads are rebuilt under the new settings in the same transaction, so no rater's next
    serve pays for it."""
    study = load_study(db, name)
    if status is not None and status not in ("open", "paused", "closed"):
        raise StudyError(f"status must be open, paused or closed, not {status!r}")
    if status == "open" and not item_store.has_regular_items(db, name):
        raise StudyError(f"study {name!r} has no items to rate yet; import items before opening it")
    for key in RECORDED:
        if key in changes:
            raise StudyError(REFUSED[key])
    settings = stored_settings(study, **changes) if changes else None
    with immediate(db, name):
        study_store.update_study(db, name, settings=settings, status=status)
        if changes:
            audit.record(db, "study.configure", name, changes=changes)
        if status is not None and status != study.status:
            verb = {"open": "open", "paused": "pause", "closed": "close"}[status]
            audit.record(db, f"study.{verb}", name, before=study.status)
        updated = load_study(db, name)
        if settings is not None:
            ready_loads(db, updated, now)
    return updated


def stored_settings(study: LoadedStudy, **changes) -> dict:
    """The study's settings with these changes, validated as a whole, as stored (with the record, and the
    task's definition when the task was declared as data). Only fairval's own code passes a record's
    fields (human_sample, stopped) here; configure_study refuses them."""
    recorded = dataclasses.replace(study.recorded, **{k: v for k, v in changes.items() if k in RECORDED})
    researcher = {k: v for k, v in changes.items() if k not in RECORDED}
    checked = StudySettings.from_dict({**study.settings.to_dict(), **researcher})
    if {"balance_by", "balance_groups"} & set(researcher):
        checked.refuse_unanswerable_groups()
    settings = {**checked.to_dict(), **recorded.to_dict()}
    if study.definition is not None:
        settings["task_definition"] = study.definition
    return settings


def open_when_ready(db: Connection, study_id: str) -> bool:
    """A new study waits, paused, for its items; the first items open it, unless the researcher has set
    its status themselves. Returns whether it was opened."""
    row = study_store.get_study(db, study_id)
    if (row is None or row["status"] != "paused" or row["status_set_at"] is not None
            or not item_store.has_regular_items(db, study_id)):
        return False
    study_store.update_study(db, study_id, status="open", by_researcher=False)
    audit.record(db, "study.open", study_id, before="paused", reason="its first items were imported")
    return True


def ready_loads(db: Connection, study: LoadedStudy, now: float | None = None) -> LoadRules:
    """The study's load rules, its item loads rebuilt first if they were kept under other settings.
    Call inside the write transaction that goes on to change loads."""
    rules = study.settings.load_rules()
    now = time.time() if now is None else now
    loads.sync(db, study.study_id, rules, now - study.settings.timeout_seconds)
    return rules


def prolific_link_query(study_id: str) -> str:
    """What to append to the app's address for a Prolific study: Prolific fills the {{%…%}} fields."""
    return (f"?study={study_id}&PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&STUDY_ID={{{{%STUDY_ID%}}}}"
            f"&SESSION_ID={{{{%SESSION_ID%}}}}")


def list_study_names(db: Connection) -> list[str]:
    return [s["study_id"] for s in study_store.list_studies(db)]
