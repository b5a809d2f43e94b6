"""Study settings: validated once here, stored as JSON by store/."""
from __future__ import annotations

import dataclasses
import difflib
import json
import math
import re
import secrets
import time
from dataclasses import dataclass
from functools import cached_property

from fairval.annotate.material.design import Design
from fairval.annotate.material.languages import DEFAULT as DEFAULT_LANGUAGE
from fairval.annotate.material.languages import LANGUAGES, further_languages, supported
from fairval.annotate.material.setting_help import RECORDED, SETTING_HELP
from fairval.annotate.material.tasks import PRESETS, Task, get_task
from fairval.annotate.material.vocabulary import RATER_ANSWERS, refusal
from fairval.errors import StoreError, StudyError, TaskError
from fairval.store import Connection, audit, immediate, loads
from fairval.store import items as item_store
from fairval.store import studies as study_store
from fairval.store.loads import LoadRules
from fairval.store.raters import ATTRIBUTES

DEFAULT_CONSENT = (
    "This study is part of research on the fairness of AI systems. You will read short texts "
    "written by or for an AI system and answer questions about them. Some texts may touch on "
    "stereotypes about groups of people. Participation is voluntary: you may stop at any time, "
    "and closing the page keeps the answers you have already submitted. Your answers are stored "
    "with your participant ID and the background details you choose to give, used only for this "
    "research, and reported only in aggregate.")
# The default for tasks whose raters should not be told what is looked for (a template's wording, what a name
# suggests): naming stereotypes or fairness would say it. Pairs and scenarios name stereotypes themselves.
NEUTRAL_CONSENT = (
    "This study is part of research on AI systems. You will read short texts written by or for an AI system and "
    "answer questions about them. Participation is voluntary: you may stop at any time, and closing the page "
    "keeps the answers you have already submitted. Your answers are stored with your participant ID and the "
    "background details you choose to give, used only for this research, and reported only in aggregate.")
DEFAULT_CONSENTS = (DEFAULT_CONSENT, NEUTRAL_CONSENT)     # fairval's own words: shown in the study's language


def default_consent(task: str | None) -> str:
    """The consent text a study on this task gets unless the researcher writes one."""
    preset = PRESETS.get(task or "")
    return DEFAULT_CONSENT if preset is not None and preset.display in ("pair", "scenario") else NEUTRAL_CONSENT


STUDY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class StudySettings:
    raters_per_item: int = 3
    balance_by: str | None = None               # rater attribute: gender, race or country
    balance_groups: tuple[str, ...] = ()        # e.g. ("female", "male"): equal quotas per item
    flip_probability: float = 0.5
    seed: int = 0
    gold_rate: float = 0.0                      # share of served items that are gold, when gold exists
    min_seconds: float = 0.0                    # answers faster than this count as too fast
    timeout_seconds: float = 1800.0             # a served, unanswered item goes back to the pool
    max_items_per_rater: int | None = None
    max_fills_per_template: int | None = None   # fills of one template a rater may get (1: compare between raters)
    fills_back_to_back: bool = False            # may a rater get two fills of one template in a row
    demographics: tuple[str, ...] = ()          # asked of each rater, from ATTRIBUTES
    consent_text: str = DEFAULT_CONSENT
    instructions: str = ""                      # empty: the task's own instructions
    completion_code: str = ""
    prolific_redirect: bool = False             # send finished raters to Prolific with the code
    screen_out_code: str = ""                   # for a rater whose balance group is full (Prolific)
    base_pay: float = 0.0                       # the study's reward, paid on approval
    pay_per_judgment: float = 0.0               # a bonus per item answered (all its questions)
    currency: str = "USD"
    platform_fee: float = 0.43                  # the platform's fee on top of pay, as a share
    target_ci_width: float | None = None        # the anytime interval's width at which the study may stop
    main_judge: str = ""                        # the judge model the main numbers use ("": the only one,
                                                # or the first by name; --model overrides)
    language: str = DEFAULT_LANGUAGE            # BCP 47: the language fairval's words are shown to raters in
    languages: tuple[str, ...] = ()             # further languages a rater may pick on the consent screen
    stop_when_excludes: float | None = None     # pause the study once H's anytime interval excludes this value
    prolific_study_id: str = ""                 # pause this Prolific study too when the study stops itself
    signed_links: bool = False                  # link-raters need `fairval study links`' signed links
    group_labels: dict | None = None            # {language: {group: label}}: what raters read for an item's
                                                # group_a/group_b; the stored group (and the numbers) unchanged

    def __post_init__(self) -> None:
        shipped = supported(str(self.language))
        if shipped is None:
            raise StudyError(f"language must be one fairval ships ({', '.join(LANGUAGES)}), not {self.language!r}")
        object.__setattr__(self, "language", shipped)
        object.__setattr__(self, "languages", further_languages(self.languages, shipped))
        if self.stop_when_excludes is not None and not (isinstance(self.stop_when_excludes, (int, float))
                                                        and -1 <= self.stop_when_excludes <= 1):
            raise StudyError(f"stop_when_excludes must be a value of H in [-1, 1], not {self.stop_when_excludes!r}")
        if self.target_ci_width is not None and not (isinstance(self.target_ci_width, (int, float))
                                                     and 0 < self.target_ci_width <= 2):
            raise StudyError(f"target_ci_width must be a width between 0 and 2 (H lies in [-1, 1]), "
                             f"not {self.target_ci_width!r}")
        if not isinstance(self.raters_per_item, int) or self.raters_per_item < 1:
            raise StudyError(f"raters_per_item must be a whole number of at least 1, "
                             f"not {self.raters_per_item!r}")
        if self.balance_by is not None and self.balance_by not in ATTRIBUTES:
            raise StudyError(f"balance_by must be one of {', '.join(ATTRIBUTES)}, "
                             f"not {self.balance_by!r}")
        if self.balance_groups and not self.balance_by:
            raise StudyError("balance_groups needs balance_by (the rater attribute the groups are of, e.g. "
                             "gender); give both, or neither")
        if self.balance_by and len(self.balance_groups) < 2:
            raise StudyError("balance_by needs at least two balance_groups "
                             "(e.g. female,male) to split each item's raters between")
        for name in ("flip_probability", "gold_rate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise StudyError(f"{name} must lie between 0 and 1, not {value!r}")
        for name in ("base_pay", "pay_per_judgment", "platform_fee"):
            if not isinstance(getattr(self, name), (int, float)) or getattr(self, name) < 0:
                raise StudyError(f"{name} must be a number of at least 0, not {getattr(self, name)!r}")
        if self.timeout_seconds <= 0:
            raise StudyError(f"timeout_seconds must be positive, not {self.timeout_seconds!r}")
        if self.min_seconds < 0:
            raise StudyError(f"min_seconds must be a number of at least 0, not {self.min_seconds!r}")
        if self.max_items_per_rater is not None and (not isinstance(self.max_items_per_rater, int)
                                                     or self.max_items_per_rater < 1):
            raise StudyError(f"max_items_per_rater must be a whole number of at least 1 (or none for no cap), "
                             f"not {self.max_items_per_rater!r}")
        if self.max_fills_per_template is not None and (isinstance(self.max_fills_per_template, bool) or not
                                                        isinstance(self.max_fills_per_template, int)
                                                        or self.max_fills_per_template < 1):
            raise StudyError(f"max_fills_per_template must be a whole number of at least 1 (or none for no cap), "
                             f"not {self.max_fills_per_template!r}")
        if not isinstance(self.fills_back_to_back, bool):
            raise StudyError(f"fills_back_to_back must be true or false, not {self.fills_back_to_back!r}")
        if self.group_labels is not None and not (
                isinstance(self.group_labels, dict) and all(
                    isinstance(lang, str) and isinstance(labels, dict)
                    and all(isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in labels.items())
                    for lang, labels in self.group_labels.items())):
            raise StudyError('group_labels must map a language to {group: label} with text labels, e.g. '
                             f'{{"ar": {{"woman": "امرأة"}}}}, not {self.group_labels!r}')
        unknown = set(self.demographics) - set(ATTRIBUTES)
        if unknown:
            raise StudyError(f"demographics may ask only {', '.join(ATTRIBUTES)}; "
                             f"not {', '.join(sorted(unknown))}")

    @classmethod
    def settable(cls) -> dict[str, str]:
        """The settings a researcher sets (`study set`), each with its one-line meaning (the state the
        system records itself, the drawn sample and the stop, is Recorded's, never settable)."""
        return {f.name: SETTING_HELP[f.name] for f in dataclasses.fields(cls)}

    def refuse_unanswerable_groups(self) -> None:
        """A gender or race balance group must be an answer raters can give, else its share of each item
        never fills. Checked when groups are set (a study stored earlier still opens, to be corrected)."""
        for group in self.balance_groups if self.balance_by in RATER_ANSWERS else ():
            if group not in RATER_ANSWERS[str(self.balance_by)]:
                raise StudyError("balance group " + refusal(
                    group, f"a {self.balance_by} raters can answer, so its share of each item would never "
                    "fill", RATER_ANSWERS[str(self.balance_by)], "use one of them"))

    def quota(self) -> dict[str, int] | None:
        """Per-item raters allowed from each balance group (rounded up; the total still caps)."""
        if not self.balance_by:
            return None
        per = math.ceil(self.raters_per_item / len(self.balance_groups))
        return dict.fromkeys(self.balance_groups, per)

    def group_label(self, group: str, language: str | None = None) -> str:
        """A group's name as raters of `language` (the study's own when not given) read it (the group itself
        when not given)."""
        return ((self.group_labels or {}).get(language or self.language) or {}).get(group, group)

    def offered(self) -> tuple[str, ...]:
        """The languages a rater may read the study in: its own first, then the further ones."""
        return (self.language, *self.languages)

    def rater_language(self, chosen: str | None) -> str:
        """The language a rater reads: the one chosen when the study offers it, else the study's own."""
        shipped = supported(chosen or "")
        return shipped if shipped in self.offered() else self.language

    def asks(self) -> tuple[str, ...]:
        """Demographics to ask: the balance attribute always, since assignment needs it."""
        extra = (self.balance_by,) if self.balance_by and self.balance_by not in self.demographics else ()
        return tuple(self.demographics) + extra

    def load_rules(self) -> LoadRules:
        """The settings serving depends on, as store/loads.py keeps item loads under them."""
        quota = self.quota()
        return LoadRules(self.raters_per_item, self.timeout_seconds, self.balance_by,
                         tuple(self.balance_groups) if self.balance_by else (),
                         max(quota.values()) if quota else None)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> StudySettings:
        for key in RECORDED:
            if key in d:
                raise StudyError(REFUSED[key])
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - known - {"task_definition"}
        if unknown:
            near = [m for key in sorted(unknown) for m in difflib.get_close_matches(key, cls.settable(), n=1)]
            raise StudyError(f"unknown study setting(s): {', '.join(sorted(unknown))}"
                             + (f" (did you mean {', '.join(near)}?)" if near else "") + "; the settings are "
                             f"{', '.join(cls.settable())} (`fairval study set --help` says what each means)")
        values = {k: v for k, v in d.items() if k in known}
        for key in ("balance_groups", "demographics"):
            if key in values:
                values[key] = tuple(values[key] or ())
        if isinstance(values.get("languages"), str):        # `study set languages=ar,fr`
            values["languages"] = [code for code in values["languages"].split(",") if code.strip()]
        return cls(**values)


REFUSED = {"stopped": "stopped is recorded when the study stops itself; set status=open to go on",
           "human_sample": "human_sample is recorded by `fairval study sample` when it draws the pairs; it "
                           "cannot be set by hand"}


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
    """The study as stored now: its row is read every time (one query by key), so a pause or a settings
    change is seen by the very next call; parsing it (the settings validated, the task built) is done
    again only when the row's task, settings or status differ from the last ones parsed for that name."""
    row = _stored_row(db, name)
    key = (row["task"], row["settings"], row["status"])
    held = _PARSED.get(row["study_id"])
    if held is not None and held[0] == key:
        return held[1]
    study = _parse(row["study_id"], row["task"], json.loads(row["settings"]), row["status"])
    _PARSED[row["study_id"]] = (key, study)
    return study


# the last study parsed under each name, with the stored (task, settings text, status) it came from; a
# LoadedStudy is frozen, so every session of every worker thread can share it
_PARSED: dict[str, tuple[tuple, LoadedStudy]] = {}


def _parse(study_id: str, task_name: str, raw: dict, status: str) -> LoadedStudy:
    definition = raw.get("task_definition")
    task = Task.from_dict(definition) if definition else get_task(task_name)
    researcher = {k: v for k, v in raw.items() if k not in RECORDED}
    return LoadedStudy(study_id, task, StudySettings.from_dict(researcher), status, definition, Recorded.from_stored(raw))


def study_status(db: Connection, name: str) -> str:
    """open, paused or closed, as stored now."""
    return _stored_row(db, name)["status"]          # (its settings left unparsed)


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
