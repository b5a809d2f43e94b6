"""The rater's way through a study: where a rater is in the flow, serving the next item and recording
answers in one transaction each (session), how far a rater has come by serving's rules (rater_progress),
which item comes next under load and gold (assignment), and which items people are asked to rate at all,
drawn uniformly or actively (sampling).

May import: annotate.material, annotate.adaptive's next_pair and prefix_interval (the live adaptive
design's parts at this layer), store/, analysis/ (the active design's probabilities), fairval.errors.
"""
