"""What a study is and what goes into it: the task presets (tasks), studies and their settings
(studies), import files read whole and refused whole (records, importers), pair sides and canonical
scores (pairs), material generated with an LLM (generate) and the demo studies (demo).

May import: store/, analysis/ (pure helpers such as combining a judge's two orders), fairval.errors.
"""
