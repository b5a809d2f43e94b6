"""What each study setting means, in one line: for `study set --help` (which must not load the study code
and its libraries) and the refusal of an unknown setting."""

# A test checks that every field of StudySettings has its line.
SETTING_HELP = {
    "raters_per_item": "people who rate each item (a whole number, at least 1)",
    "balance_by": "the rater attribute each item's raters are split by: gender, race or country",
    "balance_groups": 'the groups of balance_by that share each item\'s raters equally, e.g. ["female","male"]',
    "flip_probability": "the chance a pair is shown with its responses swapped (0 to 1)",
    "seed": "the number every random draw of the study starts from (flips, order, samples)",
    "gold_rate": "the share of served items that are attention checks, when the study has some (0 to 1)",
    "min_seconds": "answers faster than this many seconds count as too fast",
    "timeout_seconds": "a served item left unanswered this long goes back to the pool",
    "max_items_per_rater": "the most items one rater is given (null: no cap)",
    "max_fills_per_template": "the most fills of one template (decision_question_id) a rater gets (null: no cap; "
                              "1: every comparison between raters)",
    "fills_back_to_back": "may a rater get two fills of one template in a row (true/false; default false: "
                          "never, while the study has another template)",
    "demographics": 'what each rater is asked about themselves, e.g. ["gender","race","country"]',
    "consent_text": "the consent page's text",
    "instructions": "the instructions' text (empty: the task's own)",
    "completion_code": "the code shown when a rater finishes (Prolific's completion code)",
    "prolific_redirect": "send finished raters back to Prolific with the completion code (true/false)",
    "screen_out_code": "the code for a rater whose balance group is full (Prolific)",
    "base_pay": "the study's reward per rater, paid on approval",
    "pay_per_judgment": "a bonus per item answered",
    "currency": "the currency of the pay settings, e.g. GBP",
    "platform_fee": "the platform's fee on top of pay, as a share (default 0.43)",
    "target_ci_width": "stop the study once H's anytime interval is this narrow (0 to 2)",
    "main_judge": "the judge model the main numbers use (empty: the only one, or the first by name)",
    "language": "the language raters see fairval's words in, e.g. ar, de, es",
    "languages": "further languages a rater may pick on the consent screen, e.g. ar,fr (the study opens in `language`)",
    "stop_when_excludes": "stop the study once H's anytime interval excludes this value (-1 to 1)",
    "prolific_study_id": "the Prolific study paused with this one when it stops itself",
    "signed_links": "in-house raters need the signed links `fairval study links` prints; Prolific links are refused (true/false)",
    "group_labels": 'the groups an item names as raters read them, per language, e.g. {"ar": {"woman": "امرأة"}} '
                    "(stored groups and numbers unchanged)",
}
RECORDED = ("human_sample", "stopped")          # written by fairval (studies.Recorded), never by `study set`
