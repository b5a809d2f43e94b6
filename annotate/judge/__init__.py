"""The LLM judge: running it over a study's pairs through the OpenAI protocol, each call recorded once
(run), mapping its scores to people's (calibrate), judges side by side (compare), and how many people
and pairs a target interval needs (planning).

May import: annotate.material, annotate.rating, annotate.results, annotate.outputs (formats, tables),
store/, analysis/, fairval.errors.
"""
