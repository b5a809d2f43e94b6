"""The live adaptive design (`fairval study set NAME design=adaptive budget=N`): pairs decided one at a time
in a seeded order inside the serve transaction, each chance recorded when decided, nobody waiting, and
H weighted by the recorded chances, checked against an independent computation written here."""
import json
import math

import numpy as np
import pytest

from fairval.analysis.active import judge_uncertainty
from fairval.annotate.adaptive import next_pair as adaptive
from fairval.annotate.material.studies import load_study
from fairval.annotate.rating import session
from fairval.store import items as item_store
from fairval.store import open_db
from tests.conftest import write_jsonl

SURE = {"p_a": 0.02, "p_b": 0.02, "p_c": 0.96, "q_a": 0.02, "q_b": 0.02, "q_c": 0.96}
UNSURE = {"p_a": 0.45, "p_b": 0.25, "p_c": 0.30, "q_a": 0.35, "q_b": 0.35, "q_c": 0.30}
PAIRS = 60
PRIOR = 0.7             # τ before 30 complete kept pairs (the design's set prior mix)


@pytest.fixture
def study(cli_output, tmp_path):
    """60 pairs, the judge sure of the first 30 and unsure of the rest, one rater per pair."""
    cli_output("study", "create", "s", "--task", "harmful_stereotype", "--raters-per-item", "1")
    pair = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": f"p{k:02d}", **pair} for k in range(PAIRS)])
    cli_output("items", "import", "s", tmp_path / "pairs.jsonl")
    write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": f"p{k:02d}", "model": "j", **(SURE if k < 30 else UNSURE)}
                                          for k in range(PAIRS)])
    cli_output("lmra", "import", "s", tmp_path / "lmra.jsonl")
    return tmp_path


def rate(db, rater, answer="C", now=1000.0):
    """One rater arrives, consents, takes one pair and answers it; returns the pair (or None)."""
    s = load_study(db, "s")
    session.arrive(db, "s", rater, source="link")
    session.give_consent(db, "s", rater, True)
    session.finish_instructions(db, "s", rater)
    served = session.serve_next_item(db, s, rater, now=now)
    if served is None:
        return None
    session.record_answer(db, s, rater, served.item_id, {"harm": answer(served.item_id) if callable(answer) else answer},
                          now=now + 5)
    return served.item_id


def test_pairs_are_decided_only_when_a_rater_needs_one_with_each_chance_recorded(cli_output, study, db_path):
    said = cli_output("study", "set", "s", "design=adaptive", "budget=20", "status=open")
    assert "adaptive design" in said
    db = open_db(db_path)
    frame = item_store.decisions_frame(db, "s")
    assert frame["decided_at"].isna().all() and len(frame) == PAIRS        # nothing decided before anyone comes
    first = rate(db, "r1")
    frame = item_store.decisions_frame(db, "s")
    decided = frame[frame["decided_at"].notna()]
    # the decided pairs are a prefix of the seeded order, the last one kept and served to r1
    assert list(decided["decision_order"]) == list(range(len(decided)))
    assert decided["kept"].tolist() == [False] * (len(decided) - 1) + [True] and decided["item_id"].iloc[-1] == first
    # before any answer the design already leans on the judge, keeping PRIOR of the uniform chance: each
    # chance is the one τ = PRIOR gives its pair (the unsure pairs above budget / N, the sure below)
    u_all = np.array([judge_uncertainty(SURE if i < "p30" else UNSURE, 0.0) for i in frame["item_id"]])
    under_prior = _bisected_chances(u_all, 20, PRIOR)
    sure = (frame["item_id"] < "p30").to_numpy()
    assert under_prior[sure].max() < 20 / PAIRS < under_prior[~sure].min()     # the sure pairs below uniform
    want = under_prior[decided.index]
    assert decided["mix"].tolist() == [PRIOR] * len(decided)
    assert decided["chance"].tolist() == pytest.approx(want.tolist(), rel=1e-6)
    # each coin is the pair's own seeded uniform, so the decisions are the ones the seed gives
    seed = load_study(db, "s").settings.seed
    coins = [np.random.default_rng([seed, 0xADA, k]).random() for k in decided["decision_order"]]
    assert [c < p for c, p in zip(coins, want)] == decided["kept"].tolist()
    db.close()


def _bisected_chances(u: np.ndarray, budget: float, tau: float) -> np.ndarray:
    """π = min(1, (1 − τ) c √u + τ budget / N), c by bisection so that Σπ = budget (apart from the app's)."""
    lo, hi = 0.0, 1e6
    for _ in range(200):
        c = (lo + hi) / 2
        lo, hi = (c, hi) if np.minimum(1, (1 - tau) * c * np.sqrt(u) + tau * budget / len(u)).sum() < budget else (lo, c)
    return np.minimum(1, (1 - tau) * hi * np.sqrt(u) + tau * budget / len(u))


def _mix_from(done, pool, chance_by_id, human, judge, u_all, budget):
    """τ written out (Zrnic and Candès's tuning, made predictable): from the first 10·k complete kept pairs
    (k ≥ 3; PRIOR before), weighted by 1/their chance, e = y − λ f with λ their weighted slope in [0, 1]; V(τ) − V(1) =
    mean_w(e² (1/π_τ − 1/π_1)); the τ whose one-sided 90% bound on it is lowest, if below 0, else 1."""
    done = done[:len(done) // 10 * 10]
    if len(done) < 30:
        return PRIOR
    y, f = np.array([human[i] for i in done]), np.array([judge[i] for i in done])
    w = 1 / np.array([chance_by_id[i] for i in done])
    my, mf = np.average(y, weights=w), np.average(f, weights=w)
    var = np.average((f - mf) ** 2, weights=w)
    lam = min(max(np.average((y - my) * (f - mf), weights=w) / var, 0), 1) if var > 1e-12 else 0.0
    e2 = (y - lam * f) ** 2
    at = [pool.index(i) for i in done]
    best, low = 1.0, 0.0
    for tau in [k / 10 for k in range(9, 0, -1)]:          # ties go to the more uniform τ
        pi = _bisected_chances(u_all, budget, tau)[at]
        d = e2 * (1 / pi - len(u_all) / budget)
        mean = np.sum(w * d) / w.sum()
        bound = mean + 1.2816 * math.sqrt(np.sum(w ** 2 * (d - mean) ** 2)) / w.sum()
        if bound < low - 1e-9:
            best, low = tau, bound
    return best


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_chances_lean_on_the_judge_as_far_as_the_answers_so_far_show_it_pays(cli_output, study, db_path, seed):
    """The judge sure of p00…p29, where people agree with it, and unsure of p30…, where they split: after
    30 complete pairs the answers show the judge's sureness tracking its error, and the chances lean on
    it. Each decision's τ is the one the answers before it give (written out here), its chance the one
    that τ gives, and both are on record."""
    cli_output("study", "set", "s", "design=adaptive", "budget=40", f"seed={seed}", "status=open")
    db = open_db(db_path)
    truth = lambda item: "C" if int(item[1:]) < 30 else ("A" if int(item[1:]) % 2 else "B")   # noqa: E731
    served = [rate(db, f"r{k}", truth, now=1000.0 + 10 * k) for k in range(PAIRS)]
    frame = item_store.decisions_frame(db, "s")
    assert frame["decided_at"].notna().all() and sum(x is not None for x in served) == frame["kept"].sum()
    assert rate(db, "late") is None                                           # every pair decided: nothing left
    pool = list(frame["item_id"])
    u_all = np.array([judge_uncertainty(SURE if i < "p30" else UNSURE, 0.0) for i in pool])
    judge = {r[0]: r[1] for r in db.execute("SELECT item_id, score FROM lmra_scores WHERE study_id = 's'")}
    rated = db.query("SELECT item_id, canonical, answered_at FROM ratings WHERE study_id = 's' ORDER BY answered_at")
    human = {r["item_id"]: float(r["canonical"]) for r in rated}
    chance_by_id = dict(zip(frame["item_id"], frame["chance"]))
    for row in frame.sort_values("decision_order").itertuples():
        done = [r["item_id"] for r in rated if r["answered_at"] < row.decided_at]
        want = _mix_from(done, pool, chance_by_id, human, judge, u_all, 40)
        assert row.mix == pytest.approx(want), (row.decision_order, len(done))
        assert row.chance == pytest.approx(_bisected_chances(u_all, 40, want)[row.Index], rel=1e-6)
    leaning = frame["mix"] < 1
    assert leaning.any() and (frame.loc[leaning, "chance"].nunique() > 1)     # fails while the floor stays 1
    said = adaptive.design_sentence(db, load_study(db, "s"))                  # `study show` and Manage say so
    assert f"{int(leaning.sum())} of {PAIRS} decisions leaned on the judge" in said
    assert f"the uniform share now {frame['mix'].iloc[-1]:.0%}" in said
    db.close()


def test_h_weights_each_rated_pair_by_its_recorded_chance(cli_output, study, db_path):
    cli_output("study", "set", "s", "design=adaptive", "budget=40", "target_ci_width=1.9", "status=open")
    db = open_db(db_path)
    answers = lambda item: "A" if int(item[1:]) % 3 == 0 else "C"      # noqa: E731
    for k in range(25):
        rate(db, f"r{k}", answers)
    frame = item_store.decisions_frame(db, "s")
    db.close()
    numbers = json.loads(cli_output("analyze", "s", "--json"))
    ppi = numbers["harm"]["ppi"]
    assert ppi["design"] == "adaptive"
    # independently: Z_t = λ_{t−1} m + ξ_t/π_t (y_t − λ_{t−1} f_t) over the decided pairs in order
    db = open_db(db_path)
    judge = {r[0]: r[1] for r in db.execute("SELECT item_id, score FROM lmra_scores WHERE study_id = 's'")}
    # as meant, in the pair's true order (a rater shown it flipped clicked the other letter)
    human = {r[0]: float(r[1]) for r in db.execute("SELECT item_id, canonical FROM ratings WHERE study_id = 's'")}
    db.close()
    m = np.mean(list(judge.values()))
    decided = frame[frame["decided_at"].notna()].sort_values("decision_order")
    terms, ys, fs, ws = [], [], [], []
    for row in decided.itertuples():
        y = human[row.item_id] if row.kept else 0.0          # a pair left to the judge has no answer
        lam = 0.0
        if len(ys) >= 2:
            W = np.array(ws)
            Y, F = np.array(ys), np.array(fs)
            my, mf = (W * Y).sum() / W.sum(), (W * F).sum() / W.sum()
            var = (W * F * F).sum() / W.sum() - mf ** 2
            lam = min(max(((W * Y * F).sum() / W.sum() - my * mf) / var, 0), 1) if var > 1e-12 else 0.0
        w = 1 / row.chance if row.kept else 0.0
        terms.append(lam * m + w * (y - lam * judge[row.item_id]))
        if row.kept:
            ys.append(y), fs.append(judge[row.item_id]), ws.append(w)
    assert ppi["value"] == pytest.approx(np.mean(terms))
    assert ppi["cs"]["n_decided"] == len(terms) and ppi["cs"]["n_pairs_complete"] == int(decided["kept"].sum())
    low, high = ppi["cs"]["ci"]
    assert -1 <= low < ppi["value"] < high <= 1 and high - low > 0
    # pairs decided before the bound was recorded (an older fairval) get the lowest chance the design
    # allows, 0.1 × 40/60: the same estimate, an interval no narrower
    db = open_db(db_path)
    db.execute("UPDATE items SET least_chance = NULL WHERE study_id = 's'")
    db.close()
    older = json.loads(cli_output("analyze", "s", "--json"))["harm"]["ppi"]
    assert older["value"] == pytest.approx(ppi["value"])
    assert older["cs"]["ci"][0] <= low and high <= older["cs"]["ci"][1]      # the bounds bet on before the 30th
    assert older["cs"]["ci"][1] - older["cs"]["ci"][0] >= high - low          # decided pair; the asymptotic part
                                                                              # after it does not use them


def test_practice_items_checks_and_a_second_judge_stay_out_of_the_design(cli_output, tmp_path, db_path):
    """As users' files come: a practice item and an attention check beside the pairs, and a second judge
    scored last. The design decides only the regular pairs, from the judge it names; the practice item
    comes first, on its own step, and the check still goes to people."""
    cli_output("study", "create", "s", "--task", "harmful_stereotype", "--raters-per-item", "1", "--gold-rate", "0.5")
    pair = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": f"p{k:02d}", **pair} for k in range(PAIRS)] + [
        {"id": "practice", "_practice": True, "_gold": {"harm": "C"}, **pair},
        {"id": "check", "_gold": {"harm": "C"}, **pair}])
    cli_output("items", "import", "s", tmp_path / "pairs.jsonl")
    everything = [f"p{k:02d}" for k in range(PAIRS)]
    write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": i, "model": "j", **(SURE if i < "p30" else UNSURE)}
                                          for i in everything]
                + [{"item_id": i, "model": "k", "score": 0.1} for i in everything])
    cli_output("lmra", "import", "s", tmp_path / "lmra.jsonl")
    cli_output("study", "set", "s", "design=adaptive", "budget=20", "status=open")
    db = open_db(db_path)
    study = load_study(db, "s")
    assert study.recorded.human_sample["judge"] == "j"
    frame = item_store.decisions_frame(db, "s")
    assert sorted(frame["item_id"]) == everything                      # no practice item, no check
    u = np.array([judge_uncertainty(SURE if i < "p30" else UNSURE, 0.0) for i in frame["item_id"]])
    assert frame["uncertainty"].to_numpy(float) == pytest.approx(u)    # judge j's, not k's
    session.arrive(db, "s", "r1", source="link")
    session.give_consent(db, "s", "r1", True)
    session.finish_instructions(db, "s", "r1")
    assert session.next_step(db, study, "r1", now=1000.0) == "practice"
    assert [i.item_id for i in session.practice_items(db, study)] == ["practice"]
    session.finish_practice(db, "s", "r1")
    served = []
    for step in range(8):
        item = session.serve_next_item(db, study, "r1", now=1000.0 + 10 * step)
        if item is None:
            break
        served.append(item.item_id)
        session.record_answer(db, study, "r1", item.item_id, {"harm": "C"}, now=1005.0 + 10 * step)
    assert "check" in served
    decided = item_store.decisions_frame(db, "s")
    assert set(decided.loc[decided["kept"], "item_id"]) == set(served) - {"check"}
    db.close()


def test_h_per_group_pair_under_the_design_is_each_groups_own_terms(cli_output, tmp_path, db_path):
    """Two group pairs, interleaved: each group's H is the mean of its own decided pairs' terms, with its own
    judge mean in place of the study's, and λ from every kept pair before (written out here)."""
    cli_output("study", "create", "s", "--task", "harmful_stereotype", "--raters-per-item", "1")
    groups = {f"p{k:02d}": ("woman", "man") if k % 2 else ("Black", "white") for k in range(PAIRS)}
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": i, "prompt": "P", "response_a": "a", "response_b": "b",
                                            "group_a": a, "group_b": b} for i, (a, b) in groups.items()])
    cli_output("items", "import", "s", tmp_path / "pairs.jsonl")
    write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": f"p{k:02d}", "model": "j", **(SURE if k < 30 else UNSURE)}
                                          for k in range(PAIRS)])
    cli_output("lmra", "import", "s", tmp_path / "lmra.jsonl")
    cli_output("study", "set", "s", "design=adaptive", "budget=40", "status=open")
    db = open_db(db_path)
    for k in range(30):
        rate(db, f"r{k}", lambda item: "A" if int(item[1:]) % 3 == 0 else "B" if int(item[1:]) % 5 == 0 else "C")
    frame = item_store.decisions_frame(db, "s")
    judge = {r[0]: r[1] for r in db.execute("SELECT item_id, score FROM lmra_scores WHERE study_id = 's'")}
    human = {r[0]: float(r[1]) for r in db.execute("SELECT item_id, canonical FROM ratings WHERE study_id = 's'")}
    db.close()
    block = json.loads(cli_output("analyze", "s", "--json"))["harm"]["by_pair_group"]
    label = {i: f"{a} vs {b}" for i, (a, b) in groups.items()}
    m = {g: np.mean([judge[i] for i in judge if label[i] == g]) for g in set(label.values())}
    decided = frame[frame["decided_at"].notna()].sort_values("decision_order")
    terms = {g: [] for g in m}
    ys, fs, ws = [], [], []
    for row in decided.itertuples():
        lam = 0.0
        if len(ys) >= 2:
            W, Y, F = np.array(ws), np.array(ys), np.array(fs)
            my, mf = (W * Y).sum() / W.sum(), (W * F).sum() / W.sum()
            var = (W * F * F).sum() / W.sum() - mf ** 2
            lam = min(max(((W * Y * F).sum() / W.sum() - my * mf) / var, 0), 1) if var > 1e-12 else 0.0
        w = 1 / row.chance if row.kept else 0.0
        y = human[row.item_id] if row.kept else 0.0
        terms[label[row.item_id]].append(lam * m[label[row.item_id]] + w * (y - lam * judge[row.item_id]))
        if row.kept:
            ys.append(y), fs.append(judge[row.item_id]), ws.append(w)
    for g, mine in terms.items():
        got = block["groups"][g]["ppi"]
        assert got["design"] == "adaptive" and got["n_decided"] == len(mine)
        assert got["value"] == pytest.approx(np.mean(mine))
        half = 1.959963984540054 * np.std(mine, ddof=1) / math.sqrt(len(mine))
        assert got["ci"] == pytest.approx([max(np.mean(mine) - half, -1), min(np.mean(mine) + half, 1)])
    assert block["stratified"]["value"] is None            # harm.ppi is the study's H under the design


@pytest.mark.parametrize("budget", [20, 40])
def test_study_show_says_the_set_share_and_whether_the_answers_can_take_over(cli_output, study, budget):
    """The design's sentence names the prior's uniform share, and says the answers take over only where the
    budget can reach the 30 complete pairs they need (a budget of 20 never does)."""
    cli_output("study", "set", "s", "design=adaptive", f"budget={budget}")
    shown = cli_output("study", "show", "s")
    assert f"mixed with the uniform chance: {PRIOR:.0%} uniform until 30 pairs people rated are complete" in shown
    takes_over = "then the mix the answers so far show narrows H's interval most" in shown
    assert takes_over == (budget >= 30)
    assert ("a budget under 30 never gets there" in shown) == (budget < 30)
