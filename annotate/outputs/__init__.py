"""What leaves fairval: the validated set and every rating (export, hf_export), the study report
(report, charts), the sentences and cells for judge numbers (judge_table), how numbers are written
(formats) and files written safely for spreadsheets and Markdown (files).

May import: annotate.material, annotate.rating, annotate.results, store/, analysis/, fairval.errors.
"""
