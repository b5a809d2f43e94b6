"""The benchmarks still run (quick sizes): they print their ratios, and the shared-file benchmark still
stores every judgment exactly once. Timings are not asserted here; they belong to bench/run.py. One test
per suite, so each has the test timeout to itself (the session suite installs Potato on a fresh machine)."""
import re

import pytest

from bench.run import SUITES, main


def quick(name: str) -> str:
    return "\n".join(main([name, "--quick"]))


def test_serving():
    assert len(re.findall(r"serve\+record .* p95 .*\(\d+\.\d\dx\)", quick("serving"))) == 3


def test_analysis():
    assert re.search(r"analyze .* \d+\.\d\dx the bare load \+ krippendorff", quick("analysis"))


def test_files():
    assert re.search(r"items import .*x parsing the file", quick("files"))


def test_processes():
    assert re.search(r"throughput on one SQLite file: \d\.\d\dx \(judgments stored: 120 and 120, expected 120 each\)",
                     quick("processes"))


def test_choice():
    assert re.search(r"choose an option, .* answer card p50 \d+ ms, button per option p50 \d+ ms \(\d+\.\dx faster\)",
                     quick("choice"))


def test_workers():
    text = quick("workers")
    workers = re.findall(r"^(sqlite|postgresql) +4 raters: 2 workers / 1 worker .* = \d+\.\d\dx; .*stored 12 and 12 of 12, "
                         r"0 lost, 0 doubled$", text, re.M)
    assert workers == ["sqlite", "postgresql"]


def test_launch():
    assert re.search(r"^  4 browsers at once: 2 workers / 1 worker items per second .*x; first page .*; stored 8 and 8 "
                     r"of 8, 0 lost, 0 doubled, 0 over cap; pages that reloaded themselves \d+ / \d+$", quick("launch"), re.M)


def test_startup():
    text = quick("startup")
    assert re.search(r"^fairval --help: as shipped [\d.]+ s \(1\.0x\); sqlite-utils imported [\d.]+ s \([\d.]+x\); "
                     r"analysis libraries imported [\d.]+ s \([\d.]+x\)", text, re.M)
    assert re.search(r"^fairval serve, supervising parent resident: as shipped \d+ MiB \(1\.0x\); .* beside a \d+ MiB "
                     r"Streamlit worker$", text, re.M)


def test_active():
    text = quick("active")
    assert len(re.findall(r"^judge ρ 0\.\d\d, (clear pairs|contested pairs|uncertainty unrelated to error): judgments for a "
                          r"0\.05-wide interval on H: people only [\d,]+, uniform PPI\+\+ [\d,]+, active \(mix 0\.5\) [\d,]+ "
                          r"\(\d\.\d\dx uniform\), active with the mix chosen from a 100-pair pilot \(median [\d.]+\) [\d,]+ "
                          r"\(\d\.\d\dx uniform\); coverage at 300 pairs", text, re.M)) == 9
    assert len(re.findall(r"active, anytime coverage \d\.\d{3} \(median stop \d+ pairs\)", text)) == 3
    assert len(re.findall(r"^judge ρ 0\.\d\d, (clear pairs|contested pairs|uncertainty unrelated to error), 500 pairs, "
                          r".* ever excludes the true H: uniform PPI\+\+, anytime \d\.\d{3}; .*fixed-n \d\.\d{3}",
                          text, re.M)) == 9


def test_pages():
    assert re.search(r"^first page \(consent\), bytes on the wire: fairval serve, 1 worker [\d,]+ KiB \(\d\.\d\dx\), "
                     r"returning [\d,]+ KiB; .*Streamlit as shipped \(streamlit run\) [\d,]+ KiB \(1\.00x\)",
                     quick("pages"), re.M)


@pytest.mark.timeout(900)          # the first run on a machine installs Potato into the benchmark's own venv
def test_session():
    text = quick("session")
    assert re.search(r"^login server CPU \(link to first item shown\): fairval [\d.]+ s, Potato [\d.]+ s, bare Streamlit "
                     r"[\d.]+ s; fairval/Potato ([\d.]+x|n/a.*), fairval/bare ([\d.]+x|n/a.*)$", text, re.M)
    assert re.search(r"^server CPU per item answered: fairval [\d.]+ s, Potato [\d.]+ s, bare Streamlit [\d.]+ s", text, re.M)


def test_trust():
    text = quick("trust")
    assert len(re.findall(r"^judge of noise for ρ ≈ 0\.\d+, (clear pairs|contested pairs|uncertainty unrelated to error): "
                          r".*no threshold trusted in \d+%$", text, re.M)) == 9
    # --escalate's lines, one under each world and judge where a threshold was trusted in some study
    within = re.findall(r"^  --escalate: people on a median \d+% of pairs; H from the labels within its stated bound "
                        r"in (\d+\.\d)% of studies \(median error \d\.\d{4}\)$", text, re.M)
    assert 1 <= len(within) <= 9 and all(0 <= float(w) <= 100 for w in within)


def test_adaptive():
    text = quick("adaptive")
    found = re.findall(r"^adaptive vs uniform, (clear pairs|contested pairs|uncertainty unrelated to error), judge "
                       r"ρ≈0\.\d+: .* adaptive [\d,]+, uniform [\d,]+ \(\d\.\d\dx\), the live design held at the uniform "
                       r"chance [\d,]+ \(\d\.\d\dx\); coverage at the stop: adaptive (\d\.\d{3}), ", text, re.M)
    assert len(found) == 9 and {world for world, _ in found} == {"clear pairs", "contested pairs",
                                                                 "uncertainty unrelated to error"}
    assert re.search(r"^coverage at the stop over all worlds: adaptive \d\.\d{3} \(27 studies\)", text, re.M)


def test_through_serving():
    text = quick("through_serving")
    assert re.search(r"^through serving, sorted by group pair, uniform --n, 2 rater\(s\) per pair, 40 pairs \(20 to people\): "
                     r"H's running interval ever excluded the true H in [01] of 1 studies \(\d+%\); the end's interval "
                     r"inside the one after 5 complete pairs in [01] of 1; "
                     r"completion order against file order: Spearman -?\d\.\d\d, "
                     r"\d+% of the judgments made before the first pair was complete$", text, re.M)
    widths = re.findall(r"at (\d+) complete pairs anytime (\d\.\d{3}) / fixed-n PPI\+\+ (\d\.\d{3}) = \d+\.\d\dx after "
                        r"(\d+) judgments", text)
    # one rater per pair: the judgments by a look are at least its complete pairs; both widths in (0, 2]
    assert [int(at) for at, *_ in widths] == [10, 20]
    assert all(int(j) >= int(at) and 0 < float(a) <= 2 and 0 < float(f) <= 2 for at, a, f, j in widths)
    stops = re.findall(r"^through serving, clear pairs, (uniform --n|adaptive) \(30 of 60 pairs\), 3 raters per pair, "
                       r"stopping itself at width 1\.2 .*: median judgments (\d+)", text, re.M)
    # uniform --n: at most its 30 pairs' 90 judgments; adaptive: each pair kept by a coin (30 is the budget's
    # expectation), and with 30 of 60 pairs it never passes the asymptotic part's 50-pair burn-in (issue 53), so
    # it may rate every kept pair: at most all 60 pairs' 180
    assert [d for d, _ in stops] == ["uniform --n", "adaptive"]
    assert 0 < int(stops[0][1]) <= 90 and 0 < int(stops[1][1]) <= 180


def test_stopping():
    text = quick("stopping")
    assert re.search(r"1,500 pairs: CPU per answer with a stopping rule / without \d+\.\d\dx", text)
    assert re.search(r"1,500 pairs, adaptive design: CPU per answer with a stopping rule / without \d+\.\d\dx", text)


def test_load():
    """Server CPU per participant, fairval and bare Streamlit side by side (no base checkout named here), and the
    bytes sent to one participant: the card's script and CSS once (about 17 KB), not in each of its 10 mounts."""
    text = quick("load")
    assert re.search(r"^  fairval: 0\.\d{3} s .*\n  bare Streamlit: 0\.\d{3} s .*\n  bare Streamlit with a pages/ folder of 4 "
                     r"pages: 0\.\d{3} s .*\n  fairval / bare \d+\.\d\dx$",
                     text, re.M), text
    sent = {label: int(kb) for label, kb in re.findall(r"^  (fairval|bare Streamlit): .*; (\d+) KB sent per participant$",
                                                       text, re.M)}
    assert sent["bare Streamlit"] < sent["fairval"] < sent["bare Streamlit"] + 10 * 17, text


def test_every_suite_is_tested_here():
    tested = {name[len("test_"):] for name in globals() if name.startswith("test_") and name[5:] in SUITES}
    assert tested == set(SUITES)


def test_through_serving_computes_its_references_independently():
    """The fixed-n PPI++ written in the bench agrees with the app's (two implementations of ppi_py's
    formula); the judge's score the bench computes from the rows it writes is the one the app imports; the
    world whose judge's sureness is unrelated to its error has the clear world's scores and no such relation."""
    import numpy as np

    from bench.through_serving import ppi_fixed_n
    from bench.worlds import judge_rows, judge_score, make_world
    from fairval.analysis.active import judge_uncertainty
    from fairval.analysis.lmra import combine_orders
    from fairval.analysis.ppi import ppi_mean

    rng = np.random.default_rng(3)
    f = rng.uniform(-1, 1, 900)
    y = np.clip(0.8 * f + rng.normal(0, 0.3, 900), -1, 1)
    assert ppi_fixed_n(y[:150], f[:150], f[150:]) == pytest.approx(list(ppi_mean(y[:150], f[:150], f[150:]).ci), abs=1e-12)
    relation = {}
    for world in ("clear pairs", "sureness unrelated to error"):
        w = make_world(np.random.default_rng(5), world, 3000)
        rows = judge_rows(w)
        imported = [combine_orders([r["p_a"], r["p_b"], r["p_c"]], [r["q_a"], r["q_b"], r["q_c"]]).score for r in rows]
        assert judge_score(w) == pytest.approx(imported, abs=1e-12)
        u = np.array([judge_uncertainty({k: r[k] for k in ("p_a", "p_b", "p_c", "q_a", "q_b", "q_c")}, 0.0) for r in rows])
        relation[world] = np.corrcoef(u, np.abs(w["mu"] - judge_score(w)))[0, 1]
    assert relation["clear pairs"] > 0.3 and abs(relation["sureness unrelated to error"]) < 0.08


def test_rater_model():
    text = quick("rater_model")
    assert len(re.findall(r"honest accuracy \d+%: all 3 random answerers flagged in \d+ of 5 crowds", text)) == 3


def test_adaptive_cost():
    text = quick("adaptive_cost")
    assert re.search(r"^adaptive cost, sureness from Beta\(0\.5, 0\.5\), unrelated, 400 pairs, budget 200: 1 studies "
                     r"\(seeds 5300–5300\); judgments to a 0\.15 width, mean adaptive \d+ / uniform --n \d+ = \d\.\d\dx",
                     text, re.M)


def test_adaptive_knobs():
    text = quick("adaptive_knobs")
    assert re.search(r"^contested pairs, 400 pairs, budget 200, 2 studies: uniform \d+ judgments", text, re.M)
    assert len(re.findall(r"^    (app|tuned to every pair) +\d+ = \d\.\d\dx, held [012]/2", text, re.M)) == 2


def test_issue53():
    text = quick("issue53")
    assert len(re.findall(r"^issue 53, .* ever excluded the true H in [01] of 1 studies", text, re.M)) == 2
    assert re.search(r"^issue 53, sure of 80%, adaptive .* stopped in [01] of 1, H inside the interval at [01] of [01] stops",
                     text, re.M)


def test_adaptive_knobs_burn_in_reaches_the_guard(monkeypatch):
    """bench/adaptive_knobs.py's burn-in knob: at its first look (20 complete pairs) the guard itself may lean, as
    Kendall's τ_b computed here says it should; before, the guard still wanted PILOT_MIN_PAIRS (30) and answered
    no, so "burn-in 20" held the design at the uniform chance from its 20th pair. The app's constants come back."""
    import numpy as np
    from scipy import stats

    from bench import adaptive_knobs
    from bench.worlds import make_world
    from fairval.analysis import active

    looks, real = [], active.sureness_predicts

    def guard(u, residual):
        looks.append((len(residual), real(u, residual), stats.kendalltau(
            np.sqrt(u), np.square(residual), alternative="greater").pvalue))
        return looks[-1][1]
    monkeypatch.setattr(active, "sureness_predicts", guard)
    before = (active.GUARD_LEVEL, active.PILOT_MIN_PAIRS, active.EVIDENCE_Z)
    w = make_world(np.random.default_rng(0), "sure of 80%", 400)
    y = adaptive_knobs.people(np.random.default_rng([0, 1]), w)
    adaptive_knobs.adaptive(np.random.default_rng([0, 3]), w, y, 200, burn=20)
    assert looks[0][0] == 20
    assert looks[0][2] < 0.01 and looks[0][1] is True          # the answers show it: the guard leans at 20
    assert all(lean == (p < 0.01) for _n, lean, p in looks)
    assert before == (active.GUARD_LEVEL, active.PILOT_MIN_PAIRS, active.EVIDENCE_Z)
