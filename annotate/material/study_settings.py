"""A study's settings: validated once here (raters per item, balance, checks, language, stop rule), stored as JSON
by store/ through studies.py; and fairval's own consent texts, a setting's defaults."""
from __future__ import annotations

import dataclasses
import difflib
import math
from dataclasses import dataclass

from fairval.annotate.material.languages import DEFAULT as DEFAULT_LANGUAGE
from fairval.annotate.material.languages import LANGUAGES, further_languages, supported
from fairval.annotate.material.setting_help import RECORDED, SETTING_HELP
from fairval.annotate.material.tasks import PRESETS
from fairval.annotate.material.vocabulary import RATER_ANSWERS, refusal
from fairval.errors import StudyError
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
