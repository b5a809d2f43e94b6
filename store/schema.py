"""Versioned migrations: append a function, never edit one that has shipped."""
from __future__ import annotations

import secrets

from fairval.store.engine import Connection


def _v1_initial(db: Connection) -> None:
    statements = [
        """CREATE TABLE studies (
            study_id TEXT PRIMARY KEY,
            task TEXT NOT NULL,
            settings TEXT NOT NULL,          -- JSON, see annotate.material.study_settings.StudySettings
            status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'paused', 'closed')),
            created_at REAL NOT NULL
        )""",
        """CREATE TABLE items (
            study_id TEXT NOT NULL REFERENCES studies(study_id),
            item_id TEXT NOT NULL,
            position INTEGER NOT NULL,       -- import order, the tie-breaker when serving
            data TEXT NOT NULL,              -- the row as JSON with its field order
            source_line TEXT,                -- the JSONL line exactly as imported (byte-identical export)
            source_format TEXT NOT NULL,     -- 'jsonl' | 'csv' | 'demo'
            gold TEXT,                       -- JSON {question: expected value} for attention checks
            practice INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (study_id, item_id)
        )""",
        """CREATE TABLE raters (
            study_id TEXT NOT NULL REFERENCES studies(study_id),
            rater_id TEXT NOT NULL,
            source TEXT NOT NULL,            -- 'prolific' | 'link' | 'import'
            platform_study_id TEXT,
            platform_session_id TEXT,
            consent TEXT,                    -- NULL until asked; 'given' | 'declined'
            gender TEXT, race TEXT, country TEXT,
            instructions_done INTEGER NOT NULL DEFAULT 0,
            practice_done INTEGER NOT NULL DEFAULT 0,
            started_at REAL NOT NULL,
            finished_at REAL,
            PRIMARY KEY (study_id, rater_id)
        )""",
        """CREATE TABLE assignments (
            study_id TEXT NOT NULL,
            rater_id TEXT NOT NULL,
            item_id TEXT NOT NULL,
            flipped INTEGER NOT NULL DEFAULT 0,   -- the rater sees response_b as Response 1
            served_at REAL NOT NULL,
            answered_at REAL,
            PRIMARY KEY (study_id, rater_id, item_id),
            FOREIGN KEY (study_id, item_id) REFERENCES items(study_id, item_id)
        )""",
        """CREATE TABLE ratings (
            rating_id INTEGER PRIMARY KEY,
            study_id TEXT NOT NULL,
            item_id TEXT NOT NULL,
            rater_id TEXT NOT NULL,
            question TEXT NOT NULL,
            value TEXT NOT NULL,             -- the answer as the rater saw it
            canonical TEXT NOT NULL,         -- the answer in the item's true order
            flipped INTEGER,
            comment TEXT,
            shown_at REAL,
            answered_at REAL,
            seconds REAL,
            source TEXT NOT NULL,            -- 'app' | 'import'
            UNIQUE (study_id, item_id, rater_id, question),
            FOREIGN KEY (study_id, item_id) REFERENCES items(study_id, item_id)
        )""",
        "CREATE INDEX ratings_by_item ON ratings (study_id, item_id)",
        """CREATE TABLE lmra_scores (
            study_id TEXT NOT NULL,
            item_id TEXT NOT NULL,
            model TEXT NOT NULL,
            score REAL NOT NULL,
            probabilities TEXT,              -- JSON {p_a..q_c} when imported as probabilities
            PRIMARY KEY (study_id, item_id, model),
            FOREIGN KEY (study_id, item_id) REFERENCES items(study_id, item_id)
        )""",
    ]
    for sql in statements:
        db.ddl(sql)


def _v2_judge_calls(db: Connection) -> None:
    # One row per finished judge request set (one order of one pair): a resumed run skips these.
    db.ddl("""CREATE TABLE judge_calls (
        study_id TEXT NOT NULL,
        item_id TEXT NOT NULL,
        model TEXT NOT NULL,
        swapped INTEGER NOT NULL,          -- 0: responses in true order, 1: swapped
        method TEXT NOT NULL,              -- 'logprobs' | 'samples'
        probabilities TEXT NOT NULL,       -- JSON [A, B, C], renormalised
        requests INTEGER NOT NULL,
        prompt_tokens INTEGER, completion_tokens INTEGER,
        created_at REAL NOT NULL,
        PRIMARY KEY (study_id, item_id, model, swapped),
        FOREIGN KEY (study_id, item_id) REFERENCES items(study_id, item_id)
    )""")


def _v3_item_loads(db: Connection) -> None:
    # Serving reads per-item load from here instead of aggregating the whole ledger (see store/loads.py).
    statements = [
        # 1 while a served, unanswered slot counts toward its item's load; released (0) on timeout.
        "ALTER TABLE assignments ADD COLUMN counted INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX assignments_open ON assignments (study_id, served_at) WHERE counted = 1",
        "CREATE INDEX ratings_by_rater ON ratings (study_id, rater_id, item_id)",
        "CREATE INDEX items_in_order ON items (study_id, position)",
        "CREATE INDEX items_practice ON items (study_id) WHERE practice = 1",
        # The rules the loads were built under; NULL or different: rebuilt before the next serve.
        "ALTER TABLE studies ADD COLUMN loads_key TEXT",
        """CREATE TABLE item_loads (
            study_id TEXT NOT NULL,
            item_id TEXT NOT NULL,
            grp TEXT NOT NULL,               -- a balance group, or '' (no balance; gold items)
            position INTEGER NOT NULL,
            gold INTEGER NOT NULL,
            taken INTEGER NOT NULL,          -- raters holding the item: rated it, or an open slot
            taken_group INTEGER NOT NULL,    -- of those, raters in grp
            open INTEGER NOT NULL,           -- 1: under target and grp's quota (gold: always)
            PRIMARY KEY (study_id, item_id, grp)
        )""",
        "CREATE INDEX item_loads_next ON item_loads (study_id, grp, gold, open, taken, position)",
        """CREATE TABLE open_counts (
            study_id TEXT NOT NULL,
            grp TEXT NOT NULL,
            n INTEGER NOT NULL,              -- regular items open to grp (the progress bar's count)
            PRIMARY KEY (study_id, grp)
        )""",
    ]
    for sql in statements:
        db.ddl(sql)


def _v4_rater_flow(db: Connection) -> None:
    # Where a rater is in the practice items (a reload resumes there), and when the researcher last
    # set a study's status (until then, a new study opens by itself once it has items).
    db.ddl("ALTER TABLE raters ADD COLUMN practice_step INTEGER NOT NULL DEFAULT 0")
    db.ddl("ALTER TABLE studies ADD COLUMN status_set_at REAL")


def _v5_payments(db: Connection) -> None:
    # What each rater was paid per bonus run, so the next run pays only judgments made since.
    db.ddl("""CREATE TABLE payments (
        study_id TEXT NOT NULL,
        rater_id TEXT NOT NULL,
        batch TEXT NOT NULL,
        judgments INTEGER NOT NULL,
        amount REAL NOT NULL,
        paid_at REAL NOT NULL,
        PRIMARY KEY (study_id, rater_id, batch)
    )""")


def _v6_judge_only(db: Connection) -> None:
    # Pairs outside a study's drawn human sample: scored by the judge alone, never served to raters.
    db.ddl("ALTER TABLE items ADD COLUMN judge_only INTEGER NOT NULL DEFAULT 0")


def _v7_revoked_sign_ins(db: Connection) -> None:
    # A researcher's sign-out holds in every worker and host, even if the browser kept its cookie.
    db.ddl("CREATE TABLE revoked_sign_ins (signature TEXT PRIMARY KEY, expires REAL NOT NULL)")


def _v8_bonus_batches(db: Connection) -> None:
    # A bonus paid through Prolific's API, step by step: set up (bulk id kept), sent, then paid, or
    # `unknown` when the pay call's answer was lost. Only `paid` is settled; any other state stops the
    # next run, since Prolific's pay call pays again on every request.
    db.ddl("""CREATE TABLE bonus_batches (
        study_id TEXT NOT NULL,
        batch TEXT NOT NULL,
        platform_study_id TEXT NOT NULL,
        bulk_id TEXT,
        state TEXT NOT NULL,
        detail TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (study_id, batch)
    )""")


def _v9_sign_in_security(db: Connection) -> None:
    # The server's secret that signs researcher cookies (made on first use; FAIRVAL_COOKIE_SECRET
    # overrides it), one-time grants the sign-in page hands to the cookie route, and wrong passwords
    # per client for the back-off.
    db.ddl("CREATE TABLE server_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.ddl("CREATE TABLE sign_in_grants (grant_id TEXT PRIMARY KEY, token TEXT NOT NULL, expires REAL NOT NULL)")
    db.ddl("CREATE TABLE sign_in_failures (client TEXT NOT NULL, at REAL NOT NULL)")
    db.ddl("CREATE INDEX sign_in_failures_by_client ON sign_in_failures (client, at)")


def _v10_inclusion_probability(db: Connection) -> None:
    # An active human sample (`fairval study sample --active`): each pair's chance of being drawn, kept so
    # the estimate can weight a rated pair by 1/π. NULL for studies sampled uniformly or not at all.
    db.ddl("ALTER TABLE items ADD COLUMN inclusion_probability REAL")


def _v11_judge_samples(db: Connection) -> None:
    # Each sampled answer as it arrives (runs without log-probabilities ask k samples per order): a run
    # that fails between samples keeps the paid ones, and the resume asks only for the rest.
    db.ddl("""CREATE TABLE judge_samples (
        study_id TEXT NOT NULL,
        item_id TEXT NOT NULL,
        model TEXT NOT NULL,
        swapped INTEGER NOT NULL,
        k INTEGER NOT NULL,                -- 0 … samples − 1
        letter TEXT,                       -- 'A' | 'B' | 'C', NULL for an answer without one
        prompt_tokens INTEGER, completion_tokens INTEGER,
        created_at REAL NOT NULL,
        PRIMARY KEY (study_id, item_id, model, swapped, k),
        FOREIGN KEY (study_id, item_id) REFERENCES items(study_id, item_id)
    )""")


def _v12_audit(db: Connection) -> None:
    # Who did what, when, to which study: appended to, never changed (store/audit.py). The database
    # itself refuses an UPDATE or DELETE of a row.
    db.ddl("""CREATE TABLE audit (
        id INTEGER PRIMARY KEY,
        at REAL NOT NULL,
        actor TEXT NOT NULL,               -- a researcher's name, or the OS user of a command
        via TEXT NOT NULL,                 -- 'cli' | 'page'
        action TEXT NOT NULL,              -- e.g. 'study.create', 'import.items', 'sign-in.failed'
        study_id TEXT,
        details TEXT NOT NULL              -- JSON
    )""")
    db.ddl("CREATE INDEX audit_by_study ON audit (study_id, at)")
    if db.dialect == "sqlite":
        for verb in ("UPDATE", "DELETE"):
            db.ddl(f"CREATE TRIGGER audit_no_{verb.lower()} BEFORE {verb} ON audit "
                   "BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END")
    else:
        db.ddl("""CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
                  BEGIN RAISE EXCEPTION 'the audit trail is append-only'; END $$""")
        db.ddl("CREATE TRIGGER audit_no_change BEFORE UPDATE OR DELETE ON audit "
               "FOR EACH ROW EXECUTE FUNCTION audit_append_only()")


def _v13_researchers(db: Connection) -> None:
    # Named researchers with roles (annotate/serving/sign_in.py hashes the passwords with scrypt).
    db.ddl("""CREATE TABLE researchers (
        name TEXT PRIMARY KEY,
        role TEXT NOT NULL,                -- 'owner' | 'editor' | 'viewer'
        password_hash TEXT NOT NULL,       -- scrypt$n$r$p$salt$hash
        added_at REAL NOT NULL
    )""")


def _v14_prolific_hooks(db: Connection) -> None:
    # Prolific's push (annotate/crowd/hooks.py): the workspace's signing secret and subscription, and
    # every event taken, by its X-Event-ID, so a duplicate or an older event changes nothing.
    db.ddl("""CREATE TABLE prolific_hooks (
        workspace_id TEXT PRIMARY KEY,
        secret TEXT NOT NULL,
        subscription_id TEXT NOT NULL,
        target_url TEXT NOT NULL,
        study_id TEXT,
        created_at REAL NOT NULL
    )""")
    db.ddl("""CREATE TABLE prolific_hook_events (
        event_id TEXT PRIMARY KEY,
        submission_id TEXT NOT NULL,
        status TEXT NOT NULL,
        event_at REAL NOT NULL,
        received_at REAL NOT NULL
    )""")
    db.ddl("CREATE INDEX prolific_hook_events_by_submission ON prolific_hook_events (submission_id, event_at)")


def _v15_adaptive_design(db: Connection) -> None:
    # The live adaptive design (`study set NAME design=adaptive`): each pair's place in the seeded order
    # in which pairs are decided, the judge's uncertainty the chance is set from, and when it was decided
    # (its chance then goes in inclusion_probability; judge_only = 0 when it went to people).
    db.ddl("ALTER TABLE items ADD COLUMN decision_order INTEGER")
    db.ddl("ALTER TABLE items ADD COLUMN uncertainty REAL")
    db.ddl("ALTER TABLE items ADD COLUMN decided_at REAL")
    db.ddl("CREATE INDEX items_undecided ON items (study_id, decided_at, decision_order)")


def _v16_least_chance(db: Connection) -> None:
    # The least chance any pair had when an adaptive pair was decided: known before the pair is, it
    # bounds that pair's term for the anytime interval (analysis.active.adaptive_terms). NULL for pairs
    # decided before it was kept: the lowest chance the design allows stands in.
    db.ddl("ALTER TABLE items ADD COLUMN least_chance REAL")


def _v17_running_intervals(db: Connection) -> None:
    # A study's running interval for its stopping rule (store/running.py): stepped when an answer completes a
    # pair, read by the stopping check; a missing row is rebuilt from the whole study.
    db.ddl("""CREATE TABLE running_intervals (
        study_id TEXT PRIMARY KEY REFERENCES studies(study_id),
        state TEXT NOT NULL,                 -- JSON, see annotate.rating.running
        n INTEGER NOT NULL,                  -- complete pairs counted
        value REAL,
        ci_low REAL,
        ci_high REAL
    )""")


def _v18_serving_order(db: Connection) -> None:
    # Pairs are served in a seeded random order, depth-first (annotate/rating/assignment.py): each item's
    # rank in that order and the template it fills (no two fills of one in a row), kept beside its load so
    # the next item is an index seek. Items stored before get theirs here; their loads rebuild at the
    # next serve (the loads key names the order).
    from fairval.store.order import fill_order
    db.ddl("ALTER TABLE items ADD COLUMN serve_rank INTEGER")
    db.ddl("ALTER TABLE items ADD COLUMN template TEXT")
    db.ddl("CREATE INDEX items_by_template ON items (study_id, template)")
    db.ddl("ALTER TABLE item_loads ADD COLUMN serve_rank INTEGER NOT NULL DEFAULT 0")
    db.ddl("ALTER TABLE item_loads ADD COLUMN template TEXT")
    # the least-taken index would win the planner's choice and sort the started items on every serve
    db.ddl("DROP INDEX item_loads_next")
    db.ddl("CREATE INDEX item_loads_gold ON item_loads (study_id, taken, position) WHERE gold = 1")
    db.ddl("CREATE INDEX item_loads_started ON item_loads (study_id, grp, gold, serve_rank, position) "
           "WHERE open = 1 AND taken > 0")
    db.ddl("CREATE INDEX item_loads_fresh ON item_loads (study_id, grp, gold, serve_rank, position) WHERE open = 1 AND taken = 0")
    for (study_id,) in db.execute("SELECT study_id FROM studies").fetchall():
        fill_order(db, study_id)


def _v19_decision_mix(db: Connection) -> None:
    # The share of the uniform chance, τ, an adaptive pair's chance was set with (analysis.active.live_floor,
    # chosen from the answers before it): with the chance, the record of how far the design leaned on the
    # judge. NULL for pairs decided before it was kept.
    db.ddl("ALTER TABLE items ADD COLUMN decision_mix REAL")


def _v20_decision_order(db: Connection) -> None:
    # The adaptive design's pairs by their place in the decision order: the stopping rule's running interval
    # (annotate/adaptive/prefix_interval.py) reads the next decided pairs past its prefix with an index seek.
    db.ddl("CREATE INDEX items_by_decision ON items (study_id, decision_order)")


def _v21_design_mixes(db: Connection) -> None:
    # The adaptive design's mix τ as answers come in (annotate/adaptive/next_pair.py): the complete kept pairs
    # counted and the τ chosen from them, stepped when an answer completes a kept pair, so deciding a pair
    # reads a row instead of every rating; a missing row is rebuilt from the study's answers (store/mixes.py).
    db.ddl("""CREATE TABLE design_mixes (
        study_id TEXT PRIMARY KEY REFERENCES studies(study_id),
        complete INTEGER NOT NULL,           -- complete kept pairs counted
        mix REAL NOT NULL                    -- τ chosen from the first FLOOR_EVERY·k of them
    )""")


def _v22_rater_sources(db: Connection) -> None:
    # How each rater id arrived, now one of four (issue 55): 'prolific' (Prolific's PROLIFIC_PID), 'signed' (a
    # link of `fairval study links`), 'link' (an open link or a typed id), 'import' (imported ratings). The
    # rater page never continues a Prolific id as an in-house one or the reverse (annotate/rating/session.py
    # arrive); the database refuses any other source. Rows from before keep 'link' (signed or not, unknown).
    sources = "('prolific', 'signed', 'link', 'import')"
    if db.dialect == "sqlite":
        for verb in ("INSERT", "UPDATE OF source"):
            db.ddl(f"CREATE TRIGGER raters_source_{verb.split()[0].lower()} BEFORE {verb} ON raters "
                   f"WHEN NEW.source NOT IN {sources} "
                   "BEGIN SELECT RAISE(ABORT, 'a rater comes from prolific, signed, link or import'); END")
    else:
        db.ddl(f"ALTER TABLE raters ADD CONSTRAINT raters_source CHECK (source IN {sources})")


def _v23_rater_languages(db: Connection) -> None:
    # The language each rater reads the study in, picked on the consent screen from the study's languages
    # (issue 57), and with each rating, so the numbers split by it. NULL: stored before it was recorded.
    db.ddl("ALTER TABLE raters ADD COLUMN language TEXT")
    db.ddl("ALTER TABLE ratings ADD COLUMN language TEXT")


def _v24_admissions(db: Connection) -> None:
    # The line in front of the rater page (issue 58, annotate/serving/admission.py): one row per participant
    # of a study, its ticket their place in arrival order; admitted_at once let in (kept: a reload or another
    # worker finds it), seen_at their last page, so one who left stops holding a place.
    db.ddl("""CREATE TABLE admissions (
        ticket INTEGER PRIMARY KEY,
        study_id TEXT NOT NULL,
        rater_id TEXT NOT NULL,
        arrived_at REAL NOT NULL,
        admitted_at REAL,
        seen_at REAL NOT NULL,
        UNIQUE (study_id, rater_id)
    )""")
    db.ddl("CREATE INDEX admissions_waiting ON admissions (admitted_at, ticket)")
    db.ddl("CREATE INDEX admissions_seen ON admissions (seen_at)")


def _v25_study_versions(db: Connection) -> None:
    # A token the store draws anew in the transaction of every change to a study's row (store/studies.py), so a
    # worker keeps the study it parsed while the token it reads (one short row) is the one it parsed (issue 58).
    # Drawn, not counted: a study made again under the same name, or another database, never meets an old one.
    db.ddl("ALTER TABLE studies ADD COLUMN version BIGINT NOT NULL DEFAULT 0")
    for (study_id,) in db.execute("SELECT study_id FROM studies").fetchall():
        db.execute("UPDATE studies SET version = ? WHERE study_id = ?", [secrets.randbits(62), study_id])


MIGRATIONS = [_v1_initial, _v2_judge_calls, _v3_item_loads, _v4_rater_flow, _v5_payments, _v6_judge_only,
              _v7_revoked_sign_ins, _v8_bonus_batches, _v9_sign_in_security, _v10_inclusion_probability,
              _v11_judge_samples, _v12_audit, _v13_researchers, _v14_prolific_hooks,
              _v15_adaptive_design, _v16_least_chance, _v17_running_intervals, _v18_serving_order, _v19_decision_mix,
              _v20_decision_order, _v21_design_mixes, _v22_rater_sources, _v23_rater_languages, _v24_admissions,
              _v25_study_versions]
