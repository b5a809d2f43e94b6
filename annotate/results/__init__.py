"""A study's numbers: its data read from the store into frames (numbers.load_study_data), everything a
paper reports computed by analysis/ (numbers.study_numbers), the judge's validity block (judge) and how
far the study has come (progress). Only reading: nothing here writes.

May import: annotate.material, annotate.rating, annotate.adaptive (estimate: H under the live adaptive
design), store/, analysis/.
"""

BOOTSTRAP_DRAWS = 1000     # resamples for every bootstrap interval unless a command says otherwise
