"""Producing and reading annotations: every idea in its own room.

    material/  what a study is and what goes into it: tasks, studies, import files, pairs, generation, demo
    rating/    the rater's way: serving the next item, recording answers, the assignment policy, the sample
    adaptive/  the live adaptive design, one module per part; each sits at its layer: next_pair and
               prefix_interval with rating/, estimate with results/
    results/   a study's data read from the store and the numbers analysis/ computes from it
    outputs/   what leaves fairval: exports, the report, charts, number formats, safe CSV/Markdown writing
    judge/     the LLM judge: running it, calibrating its scores, comparing judges, planning the human side
    crowd/     the crowd platform: Prolific's API, bonuses, review
    serving/   `fairval serve`: the Streamlit workers, the HAProxy front, researcher sign-in links
    cli/       the command line: thin commands that import a room when they run; no room imports it

The data's way: link → rating → store; file → material → store; store → results (via analysis/) →
outputs, pages, CLI. Rooms import only rooms listed before them above, `store/` and `analysis/` (serving
and crowd import less, as their docstrings say); `fairval.errors` holds the refusals all of them share.
tests/test_layers.py holds them to it.
"""
