"""Producing annotations: task presets, imports, assignment, the rater session, the judge, the CLI."""
