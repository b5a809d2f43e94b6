"""The live adaptive design (`fairval study set NAME design=adaptive budget=N`) in one room, each module
named by its part:

    next_pair        which pair goes to people next: the design started (each mix's chance rule set once),
                     the next pair decided in the transaction that serves it, with its chance and least
                     chance on record, and the mix τ kept as answers complete kept pairs
    prefix_interval  the stopping rule's running interval over the decided prefix, stepped as it grows
    estimate         H and sign agreement over the decided prefix (each pair weighted by 1/its chance):
                     the fixed-n interval, the anytime one, per group pair, and the design in words

Its pure math stays in analysis/ (no store, no clock): analysis.active (the chance rules, the mix τ,
the weighted terms of a decided prefix: adaptive_terms, adaptive_step), analysis.running_adaptive (one
step of the running interval, the tamed least chance) and analysis.sequential (the anytime sequences).
Beside it, the parts every design shares: annotate.material.design (the kinds of design, in words),
annotate.rating.sampling (the drawn samples: uniform, active, by group pair), annotate.rating.session
(serving: it asks next_pair), annotate.rating.running_interval (the kept interval of the other designs,
which hands adaptive states to prefix_interval) and annotate.crowd.stopping (the study that stops
itself, which rebuilds the prefix's state from the whole study).

The room spans two layers: next_pair and prefix_interval sit with rating/ (serving calls them inside
its transaction; next_pair reads rating.sampling's samplable pairs) and estimate with results/ (it
builds results' blocks, and results.numbers asks it). tests/test_layers.py holds each module to its
layer.
May import: annotate.material, annotate.rating (next_pair, prefix_interval), annotate.results
(estimate), store/, analysis/, fairval.errors.
"""
