"""The judge against a fake OpenAI-compatible server: real client, real HTTP, scripted answers."""
import json

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.judge.run import JudgeConfig, estimate, run_judge
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.errors import JudgeError
from fairval.store import lmra as lmra_store
from tests.conftest import write_jsonl
from tests.fake_openai import FakeOpenAI, completion, error

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server

# per pair: the judge's distribution over A, B, C with responses in true order (P) and swapped (Q)
DISTRIBUTIONS = {"p1": ((0.7, 0.2, 0.1), (0.3, 0.6, 0.1)),
                 "p2": ((0.1, 0.1, 0.8), (0.1, 0.1, 0.8)),
                 "p3": ((0.5, 0.4, 0.1), (0.5, 0.4, 0.1))}     # pure position bias


def expected_score(p, q):
    r = [min(p[0], q[1]), min(p[1], q[0]), min(p[2], q[2])]
    return (r[0] - r[1]) / sum(r)


@pytest.fixture
def study(db, tmp_path):
    create_study(db, "fp", "harmful_stereotype")
    import_items(db, "fp", write_jsonl(tmp_path / "pairs.jsonl", [
        {"id": i, "prompt": f"prompt {i}", "response_a": f"TRUE-A-{i}", "response_b": f"TRUE-B-{i}",
         "group_a": "woman", "group_b": "man"} for i in DISTRIBUTIONS]))
    return "fp"


def which(request: dict) -> tuple[str, bool]:
    text = request["messages"][0]["content"]
    item = next(i for i in DISTRIBUTIONS if f"prompt {i};" in text)
    swapped = text.index(f"TRUE-B-{item}") < text.index(f"TRUE-A-{item}")
    return item, swapped


def logprob_script(request, number):
    assert request["logprobs"] is True and request["max_tokens"] == 1
    item, swapped = which(request)
    dist = DISTRIBUTIONS[item][1 if swapped else 0]
    top = {"A": dist[0], "B": dist[1], "C": dist[2], " the": 0.0001}
    return 200, completion(max(top, key=top.get), top), {}


@pytest.fixture
def fake():
    servers = []

    def start(script):
        server = FakeOpenAI(script)
        servers.append(server)
        return server
    yield start
    for s in servers:
        s.close()


def test_logprobs_both_orders_combined(db, study, fake):
    server = fake(logprob_script)
    config = JudgeConfig(model="judge", base_url=server.base_url, concurrency=3)
    assert estimate(db, study, config).requests == 6
    summary = run_judge(db, study, config)
    assert summary["scored"] == 3 and summary["requests"] == 6 and len(server.requests) == 6
    scores = lmra_store.scores_frame(db, study).set_index("item_id")["score"]
    for item, (p, q) in DISTRIBUTIONS.items():
        # the fake's top_logprobs include a stray token: renormalising over A, B, C removes it
        assert scores[item] == pytest.approx(expected_score(p, q), abs=1e-3)
    assert scores["p3"] == pytest.approx(0.0, abs=1e-3)
    assert all("a user who is a woman" in r["messages"][0]["content"] for r in server.requests)


def test_rate_limits_are_retried_after_the_servers_wait(db, study, fake):
    def script(request, number):
        if number <= 2:
            return 429, error(429, "slow down"), {"Retry-After": "0"}
        return logprob_script(request, number)
    server = fake(script)
    summary = run_judge(db, study, JudgeConfig(model="judge", base_url=server.base_url, concurrency=1))
    assert summary["scored"] == 3 and len(server.requests) == 8


def test_without_logprobs_the_judge_samples(db, study, fake):
    counter = {"n": 0}

    def script(request, number):
        if request.get("logprobs"):
            return 400, error(400, "logprobs are not supported by this model"), {}
        assert request["temperature"] == 1
        _item, swapped = which(request)
        counter["n"] += 1
        # deterministic "samples": 7 A and 3 B in true order, 3 A and 7 B swapped, for every pair
        k = (number - 1) % 10
        letter = ("A" if k < 7 else "B") if not swapped else ("A" if k < 3 else "B")
        return 200, completion(letter), {}
    server = fake(script)
    summary = run_judge(db, study, JudgeConfig(model="judge", base_url=server.base_url, samples=10, concurrency=1))
    assert summary["scored"] == 3
    assert counter["n"] == 60          # 3 pairs x 2 orders x 10 samples, after one refused probe
    scores = lmra_store.scores_frame(db, study)["score"]
    # p = (.7, .3, 0), q = (.3, .7, 0): r ∝ (min(.7,.7), min(.3,.3), 0) = (.7, .3, 0) → score .4
    assert list(scores) == pytest.approx([0.4, 0.4, 0.4])


def test_an_interrupted_run_resumes_without_paying_twice(db, study, fake):
    def failing(request, number):
        if number > 3:
            return 500, error(500, "boom"), {}
        return logprob_script(request, number)
    broken = fake(failing)
    with pytest.raises(JudgeError, match="500"):
        run_judge(db, study, JudgeConfig(model="judge", base_url=broken.base_url, concurrency=1, max_retries=0))
    healthy = fake(logprob_script)
    config = JudgeConfig(model="judge", base_url=healthy.base_url, concurrency=2)
    assert estimate(db, study, config).pending_orders == 3
    summary = run_judge(db, study, config)
    assert len(healthy.requests) == 3 and summary["scored"] == 3 and summary["requests"] == 6


def test_cli_lmra_run_then_analyze(db_path, db, study, fake):
    server = fake(logprob_script)
    runner = CliRunner()
    dry = runner.invoke(cli, ["--db", str(db_path), "lmra", "run", "fp", "--model", "judge",
                              "--base-url", server.base_url, "--dry-run"])
    assert dry.exit_code == 0 and "up to 6 requests" in dry.output and server.requests == []
    result = runner.invoke(cli, ["--db", str(db_path), "lmra", "run", "fp", "--model", "judge",
                                 "--base-url", server.base_url, "--yes"])
    assert result.exit_code == 0, result.output
    assert "scored 3 of 3 pairs with judge" in result.output
    numbers = json.loads(runner.invoke(cli, ["--db", str(db_path), "analyze", "fp", "--json"]).output)
    assert numbers["harm"]["n_items_lmra"] == 3


def test_the_judge_only_rates_pair_studies(db, template_study, fake):
    with pytest.raises(JudgeError, match="harmful-stereotype"):
        estimate(db, "tq", JudgeConfig(model="m"))


def test_feature_labels_are_judged_in_both_orders_with_na_as_c(db, tmp_path, fake):
    create_study(db, "fl", "feature_label")
    import_items(db, "fl", write_jsonl(tmp_path / "f.jsonl", [
        {"id": i, "prompt": f"prompt {i}", "response_a": f"TRUE-A-{i}", "response_b": f"TRUE-B-{i}",
         "group_a": "woman", "group_b": "man", "axis_question": "which model uses more technical terms?"}
        for i in DISTRIBUTIONS]))

    def script(request, number):
        text = request["messages"][0]["content"]
        assert "Model A Response:" in text and "which model uses more technical terms?" in text
        assert "woman" not in text                      # Fig. 10 does not name the groups
        item = next(i for i in DISTRIBUTIONS if f"\nprompt {i}\n" in text)
        swapped = text.index(f"TRUE-B-{item}") < text.index(f"TRUE-A-{item}")
        a, b, c = DISTRIBUTIONS[item][1 if swapped else 0]
        return 200, completion("A", {"A": a, "B": b, "N": c}), {}
    server = fake(script)
    summary = run_judge(db, "fl", JudgeConfig(model="judge", base_url=server.base_url))
    assert summary["scored"] == 3
    scores = lmra_store.scores_frame(db, "fl").set_index("item_id")["score"]
    for item, (p, q) in DISTRIBUTIONS.items():
        assert scores[item] == pytest.approx(expected_score(p, q), abs=1e-6)
