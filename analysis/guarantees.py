"""What an anytime interval guarantees, in words: the `valid` of every anytime interval fairval reports (its
construction is analysis.sequential's)."""
from __future__ import annotations

from fairval.analysis.sequential import ALPHA, ASYMPTOTIC_FROM, split_alpha


def guarantee(n: int, *, quantity: str = "H", start: int | None = ASYMPTOTIC_FROM, population: int | None = None,
              note: str = "", order: str = "pairs are completed in a random order", alpha: float = ALPHA,
              burn_in: str | None = None, trusted: bool = False) -> str:
    """What the interval after n observations guarantees, in words (the `valid` of every anytime interval):
    exact or asymptotic, from which n, with which share of alpha, and for what: `quantity` over the study's
    `population` pairs as they were rated (a uniform sample, without replacement), H as people would answer
    it (each pair's expected answer among the people the raters are drawn from, averaged over the pairs),
    or else over the population the pairs stand for. burn_in: when the asymptotic part is used (the adaptive
    design's, issue 53: analysis.running_adaptive.BURN_IN_WORDS), the betting part running at every n;
    trusted: whether it is used now."""
    if population:
        target = f"{quantity} over the study's {population:,} pairs, each as its raters answered it"
    elif quantity == "H":
        target = ("H as people would answer it: the mean, over the study's pairs (or the population they stand "
                  "for), of each pair's expected score (A − B) among the people its raters are drawn from, not "
                  f"the ratings as they came out{note}")
    else:
        target = f"{quantity} of the population the rated pairs stand for (a superpopulation mean){note}"
    finite = ", in the without-replacement form of Waudby-Smith and Ramdas 2020" if population else ""
    betting = f"exact: a betting confidence sequence (Waudby-Smith and Ramdas 2024{finite}), from the first observation"
    share = f"{100 * split_alpha(alpha):g}%"
    asymptotic = (f"an asymptotic confidence sequence (Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas 2024{finite}) "
                  f"whose chance of ever missing tends to at most {share} as the pairs grow in number")
    if start is None:
        how = betting
    elif burn_in is not None and not trusted:
        how = (f"{betting} on, with {share} of the {100 * alpha:g}% error; {burn_in}, "
               f"{asymptotic} (the other {share}) narrows it")
    elif burn_in is not None:
        how = (f"asymptotic: {asymptotic} (the other {share}), used {burn_in}, within the exact betting sequence "
               f"({share}) kept at every observation: at most {100 * alpha:g}% in all, the asymptotic part's share in "
               "the limit")
    elif n < start:
        how = (f"{betting} with {share} of the {100 * alpha:g}% error; from the {start}th an asymptotic one with "
               f"the other {share} takes over")
    else:
        how = (f"asymptotic from the {start}th observation on: an asymptotic confidence sequence (Waudby-Smith, "
               f"Arbour, Sinha, Kennedy and Ramdas 2024{finite}) whose chance of ever missing tends to at most "
               f"{share} as the pairs grow in number, intersected with the exact betting sequence of the first "
               f"{start - 1} ({share}): at most {100 * alpha:g}% in all, the asymptotic part's share in the limit")
    return f"anytime, for {target}: however often it is looked at and whenever the study stops, if {order}; {how}"
