"""The crowd platform: Prolific's API spoken carefully (prolific_api: a call that moves money is sent
once and never retried) and what a study does with it: bonuses owed and paid once, submissions
reviewed and approved (prolific).

May import: annotate.material, annotate.rating, annotate.results, annotate.outputs (safe files), store/,
fairval.errors; not analysis/.
"""
