"""The Manage page: create and configure studies, import files, open/pause/close."""
from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from fairval.annotate.material import importers, vocabulary
from fairval.annotate.material.languages import LANGUAGES
from fairval.annotate.material.studies import (
    configure_study,
    create_study,
    list_study_names,
    load_study,
    prolific_link_query,
)
from fairval.annotate.material.study_settings import StudySettings, default_consent
from fairval.annotate.material.tasks import PRESETS
from fairval.annotate.outputs.formats import count
from fairval.errors import FairvalError, StudyError
from fairval.store import audit
from fairval.store.db import default_db_path
from fairval.ui import plan_view
from fairval.ui.common import file_uploader, get_db, inert, show_table
from fairval.ui.study_picker import pick_study

ATTRS = ["gender", "race", "country"]
IMPORTS = {"Items": importers.import_items, "Ratings collected elsewhere": importers.import_ratings,
           "LMRA scores": importers.import_lmra}


def render() -> None:
    st.title("Manage studies")
    # keyed: the server keeps which tab is open, so a study first picked in Configure or Import (a rerun that
    # rewrites the address) leaves the researcher on that tab, not back on Create
    create, configure, upload, planner, trail = st.tabs(["Create", "Configure", "Import", "Plan", "Audit trail"],
                                                        key="manage-tab", on_change="rerun")
    with create:
        _create()
    with configure:
        study_id = pick_study(key="manage-study")
        if study_id:
            _configure(study_id)
    with upload:
        study_id = pick_study(key="import-study")
        if study_id:
            _import(study_id)
    with planner:
        study_id = pick_study(key="plan-study")
        if study_id:
            plan_view.render(study_id, default_db_path())
    with trail:
        _audit_trail()


def _audit_trail() -> None:
    """Who did what, when (append-only): the newest first, as `fairval audit` prints it."""
    import pandas as pd

    rows = audit.entries(get_db())[::-1][:500]
    if not rows:
        st.caption("Nothing recorded yet.")
        return
    st.caption(f"The {len(rows)} most recent entries, newest first; `fairval audit [STUDY] --json` gives every one.")
    show_table(pd.DataFrame([{"when (UTC)": pd.Timestamp(r["at"], unit="s").strftime("%Y-%m-%d %H:%M:%S"),
                              "who": r["actor"], "via": r["via"], "action": r["action"], "study": r["study_id"] or "",
                              "details": ", ".join(f"{k}={v}" for k, v in r["details"].items() if v is not None)}
                             for r in rows]), narrow=("details",))


def settings_fields(current: StudySettings, key: str, consent_key: str = "") -> dict:
    """The study's settings as widgets; returns the values to save. consent_key: a new one shows
    `current.consent_text` afresh (Create: the chosen task's own default)."""
    c1, c2, c3 = st.columns(3)
    # No bounds on the inputs: an out-of-range number is refused by the study's own rules, in words, on
    # Create or Save (a bounded input would only turn red and make the button do nothing).
    values: dict[str, object] = {
        "raters_per_item": c1.number_input("Raters per item", value=current.raters_per_item, step=1,
                                           key=f"{key}-rpi"),
        "flip_probability": c2.number_input("Flip probability", value=current.flip_probability, step=0.05,
                                            key=f"{key}-flip"),
        "gold_rate": c3.number_input("Gold rate", value=current.gold_rate, step=0.05, key=f"{key}-gold"),
        # minutes as a person reads them ("30", "1.5"), not "1800.00" seconds: stored in seconds
        "timeout_seconds": round(60 * c1.number_input("Timeout (minutes)", value=current.timeout_seconds / 60,
                                                      step=1.0, format="%g", key=f"{key}-timeout"), 3),
        "min_seconds": c2.number_input("Minimum seconds per item", value=float(current.min_seconds), format="%g",
                                       key=f"{key}-min"),
        "max_items_per_rater": c3.number_input("Max items per rater (0: no cap)", value=current.max_items_per_rater
                                               or 0, step=1, key=f"{key}-max") or None,
        # pair studies: the anytime interval on H at which the Results page says the study may stop
        "target_ci_width": c1.number_input("Target width of H's interval (0: none)",
                                           value=float(current.target_ci_width or 0.0), step=0.01,
                                           key=f"{key}-target") or None,
        "stop_when_excludes": c2.number_input("Stop once H's interval excludes (empty: never)",
                                              value=current.stop_when_excludes, step=0.1, key=f"{key}-excludes"),
    }
    values["prolific_study_id"] = c3.text_input("Prolific study id (paused with the study)",
                                                current.prolific_study_id, key=f"{key}-prolific-id").strip()
    balance = st.selectbox("Balance raters by", ["(none)", *ATTRS],
                           index=(ATTRS.index(current.balance_by) + 1) if current.balance_by else 0,
                           key=f"{key}-balance")
    values["balance_by"] = None if balance == "(none)" else balance
    groups = st.text_input("Balance groups (comma-separated, e.g. female,male)",
                           ",".join(current.balance_groups), key=f"{key}-groups")
    # groups without an attribute are passed on, so the refusal says what is missing
    values["balance_groups"] = [g.strip() for g in groups.split(",") if g.strip()]
    values["demographics"] = st.multiselect("Ask raters", ATTRS, list(current.demographics), key=f"{key}-ask")
    codes = list(LANGUAGES)
    values["language"] = st.selectbox("Raters' language (fairval's own words; write consent and instructions in it)",
                                      codes, index=codes.index(current.language), key=f"{key}-language",
                                      format_func=lambda code: f"{LANGUAGES[code][0]} ({code})")
    values["languages"] = st.multiselect("Further languages a rater may pick on the consent screen (fairval's own "
                                         "words and the default consent are translated; a text you write is shown "
                                         "as written)", codes, list(current.languages), key=f"{key}-languages",
                                         format_func=lambda code: f"{LANGUAGES[code][0]} ({code})")
    values["consent_text"] = st.text_area("Consent text", current.consent_text,
                                        key=f"{key}-consent{consent_key}")
    values["instructions"] = st.text_area("Instructions (empty: the task's own)", current.instructions,
                                          key=f"{key}-instr")
    values["completion_code"] = st.text_input("Completion code", current.completion_code, key=f"{key}-code")
    values["prolific_redirect"] = st.checkbox("Send finished raters back to Prolific",
                                              current.prolific_redirect, key=f"{key}-prolific")
    values["fills_back_to_back"] = st.checkbox("Allow two fills of one template in a row (fewer raters for unequal "
                                               "templates; a rater may see what varies)", current.fills_back_to_back,
                                               key=f"{key}-back-to-back")
    return values


def _create() -> None:
    # the task outside the form: picking one reruns the page, so the consent text shown is that task's default
    task = st.selectbox("Task", list(PRESETS), key="create-task")
    with st.form("create-study"):
        name = st.text_input("Name (letters, digits, - _ .)")
        values = settings_fields(StudySettings(consent_text=default_consent(task)), "create", f"-{task}")
        if st.form_submit_button("Create study", type="primary"):
            try:
                values = {k: v for k, v in values.items() if k != "completion_code" or v}
                create_study(get_db(), name.strip(), task, **values)
                st.success(f"Created study {name.strip()!r}.")
                _pick(name.strip())
            except FairvalError as e:
                st.error(inert(e))


def _pick(study_id: str) -> None:
    """The tabs drawn after Create (this same run) show the new study, so what they say is about it, not
    about the study picked before."""
    from fairval.ui.study_picker import CHOSEN

    st.query_params["study"] = study_id
    st.session_state[CHOSEN] = study_id
    for key in ("manage-study", "import-study", "plan-study"):
        st.session_state[key] = study_id


def app_address() -> str:
    """The app's address as this browser reached it (scheme, host and port, no page or query)."""
    from urllib.parse import urlsplit

    url = urlsplit(st.context.url or "http://localhost:8501/")
    return f"{url.scheme}://{url.netloc}/"


def _configure(study_id: str) -> None:
    db = get_db()
    study = load_study(db, study_id)
    st.caption(f"{inert(study.task.title or study.task.name)} (task `{study.task.name}`) · status: **{study.status}**")
    st.code(app_address() + prolific_link_query(study_id), language=None, wrap_lines=True)  # no scroll a keyboard cannot reach
    st.caption("The Prolific study link, as Prolific wants it (it fills the {{%…%}} fields); in-house raters use "
               f"`{app_address()}?study={study_id}&rater=ID`. Behind a proxy, use the address raters reach.")
    cols = st.columns(3)
    verbs = {"open": "Open", "paused": "Pause", "closed": "Close"}          # what each button does, as a verb
    for col, status in zip(cols, ("open", "paused", "closed")):
        if col.button(verbs[status], key=f"status-{status}", disabled=study.status == status):
            try:
                configure_study(db, study_id, status=status)
                st.rerun()
            except FairvalError as e:
                st.error(inert(e))
    notes = st.container()          # filled after the form: what a Save just changed is what it says
    with st.form(f"configure-{study_id}"):
        values = settings_fields(study.settings, f"cfg-{study_id}")
        if st.form_submit_button("Save settings", type="primary"):
            try:
                configure_study(db, study_id, **values)
                st.success("Saved.")
            except FairvalError as e:
                st.error(inert(e))
    with notes:
        _notices(study_id)
    _design(study)


def _notices(study_id: str) -> None:
    """What the settings mean for the raters needed (unequal templates), and what they leave undone (gold
    items never served at a gold rate of 0)."""
    from fairval.annotate.material.gold_checks import unused_gold_notice
    from fairval.annotate.rating.fills import study_fill_plan

    plan = study_fill_plan(get_db(), study_id)
    said = plan.sentence(study_id, on_page=True)
    if said:
        (st.warning if plan.single else st.info)(inert(said[0].upper() + said[1:] + "."))
    notice = unused_gold_notice(get_db(), study_id)
    if notice:
        st.warning(inert(notice[0].upper() + notice[1:] + "."))


def _design(study) -> None:
    """How the pairs go to people: the adaptive design (as `fairval study set NAME design=adaptive budget=N`)."""
    from fairval.annotate.adaptive import next_pair as adaptive
    from fairval.annotate.material.pairs import scored_question

    if scored_question(study.task) is None:
        return
    st.subheader("Design")
    said = adaptive.design_sentence(get_db(), study)
    if said:
        st.write(said[0].upper() + said[1:] + ".")     # capitalize() would lower a judge named GPT-4o
        return
    st.caption("Every pair goes to people unless a sample is drawn. The adaptive design decides each pair when a "
               "rater needs one, sending people the pairs the judge is least sure of, each with a recorded chance; "
               "with a target width above, the study stops itself once H's interval is that narrow.")
    with st.form(f"design-{study.study_id}"):
        budget = st.number_input("Pairs people are expected to rate in all", value=None, step=1,
                                 key=f"budget-{study.study_id}")
        if st.form_submit_button("Use the adaptive design"):
            try:
                if budget is None:
                    raise StudyError("give the number of pairs people are expected to rate")
                adaptive.start(get_db(), study.study_id, int(budget))
                st.rerun()
            except FairvalError as e:
                st.error(inert(e))
    _escalate(study)


def _escalate(study) -> None:
    """Trust or escalate (as `fairval study sample NAME --escalate --pilot STUDY`)."""
    from fairval.annotate.judge.trust import escalate_sample

    pilots = [name for name in list_study_names(get_db()) if name != study.study_id]
    st.caption("Trust or escalate: people rate only the pairs where the judge's confidence is below the threshold "
               "found on a pilot people rated (another pair study the same judge scored, its pairs from the same "
               "pool); the judge decides the rest alone, with a guaranteed agreement with people.")
    with st.form(f"escalate-{study.study_id}"):
        pilot = st.selectbox("Pilot study", pilots, index=None, key=f"pilot-{study.study_id}")
        agreement = st.number_input("Agreement with people's majority", min_value=0.5, max_value=0.99, value=0.9,
                                    step=0.01, key=f"agreement-{study.study_id}")
        risk = st.number_input("Risk (chance the threshold does not give it)", min_value=0.01, max_value=0.5,
                               value=0.05, step=0.01, key=f"risk-{study.study_id}")
        if st.form_submit_button("Escalate to people only where the judge is unsure"):
            try:
                if pilot is None:
                    raise StudyError("choose the pilot study the threshold is found on")
                escalate_sample(get_db(), study.study_id, pilot, agreement=float(agreement), risk=float(risk))
                st.rerun()
            except FairvalError as e:
                st.error(inert(e))


def imported_line(result: importers.ImportResult, study_id: str) -> str:
    """What an import wrote, "1 row" or "2 rows", the identical rows it left as they were, and, as the CLI
    says it, how many of the items are to rate, practice and attention checks."""
    kept, kinds = result.skipped, result.kinds_line()
    return (f"Imported {count(result.written, 'row')} into {study_id!r}"
            + (f"; {count(kept, 'identical row')} {'was' if kept == 1 else 'were'} stored already." if kept else ".")
            + (f" {kinds[:1].upper()}{kinds[1:]}." if kinds else ""))


def _import(study_id: str) -> None:
    kind = st.radio("What the file holds", list(IMPORTS), horizontal=True)
    upload = file_uploader("JSON Lines or CSV file", type=["jsonl", "ndjson", "json", "csv"])
    # the command's --map, one a line: a refusal's suggested map can be given here, not only on the command line
    mapped = st.text_area("Labels to map (--map), one a line", key=f"map-{study_id}", height=68,
                          placeholder="afam=Black\nblack=Black+female",
                          help="A label of the file that matches no answer, as LABEL=ANSWER, or a name group's "
                               "answers joined by + (docs/formats.md, \"Labels and answers\"). Items and "
                               "ratings only.") if kind != "LMRA scores" else ""
    if upload is not None and st.button("Import", type="primary"):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / Path(upload.name).name
            path.write_bytes(upload.getvalue())
            try:
                label_map = vocabulary.parse_map([line for line in mapped.splitlines() if line.strip()])
                options = {"label_map": label_map} if label_map else {}
                result = IMPORTS[kind](get_db(), study_id, path, **options)
                st.success(imported_line(result, study_id))
                if result.matched:
                    st.info(inert(result.matched_line()))
                for notice in result.notices:
                    st.warning(notice[0].upper() + notice[1:] + ".")
            except FairvalError as e:
                st.error(inert(f"Nothing was imported. {e}"))
