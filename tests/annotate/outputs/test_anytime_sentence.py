"""The anytime interval in words (Results, the report): the adaptive design's switch to the asymptotic
sequence counts decided pairs, not complete ones, and the sentence says which."""
from fairval.annotate.outputs.judge_table import anytime_sentence
from fairval.annotate.results.blocks import Anytime


def test_the_adaptive_designs_sentence_counts_decided_pairs():
    adaptive = Anytime.from_dict({"value": 0.1, "ci": [-0.2, 0.4], "n_pairs_complete": 52, "n_decided": 100,
                                  "method": "asymptotic", "asymptotic_from": 30})
    said = anytime_sentence(adaptive, "H", target=False)
    assert said == ("H is between -0.200 and 0.400, valid however often you look (52 pairs complete, 100 decided; "
                    "asymptotic, from the 30th decided pair once 50 pairs are complete).")    # issue 53's burn-in
    uniform = Anytime.from_dict({"value": 0.1, "ci": [-0.2, 0.4], "n_pairs_complete": 40, "method": "asymptotic",
                                 "asymptotic_from": 30})
    assert anytime_sentence(uniform, "H", target=False).endswith("(40 pairs complete; asymptotic, from the 30th pair).")
