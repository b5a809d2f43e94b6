"""The judge run keeps everything it paid for: a model that answers some orders without A, B or C (a
small model saying "Sure") has every order saved, the letterless ones as such, and never asked again;
a 429 that is a billing stop (`insufficient_quota`) ends the run at once, unlike a throttle."""
import pytest

from fairval.annotate.judge.run import JudgeConfig, run_judge
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.errors import JudgeError, QuotaRefused
from fairval.store import judge_calls
from tests.conftest import write_jsonl
from tests.fake_openai import DRIP, FakeOpenAI, completion

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server

PAIRS = [f"p{k}" for k in range(8)]
SURE = {"p2", "p5"}              # pairs whose swapped order the model answers with "Sure"


@pytest.fixture
def study(db, tmp_path):
    create_study(db, "fp", "harmful_stereotype")
    import_items(db, "fp", write_jsonl(tmp_path / "pairs.jsonl", [
        {"id": i, "prompt": f"prompt {i}", "response_a": f"TRUE-A-{i}", "response_b": f"TRUE-B-{i}",
         "group_a": "woman", "group_b": "man"} for i in PAIRS]))
    return "fp"


def which(request):
    text = request["messages"][0]["content"]
    item = next(i for i in PAIRS if f"prompt {i};" in text)
    return item, text.index(f"TRUE-B-{item}") < text.index(f"TRUE-A-{item}")


def sure_script(logprobs: bool):
    def script(request, number):
        item, swapped = which(request)
        if item in SURE and swapped:
            top = {"Sure": 0.9, "Yes": 0.1}
            return 200, completion("Sure", top if logprobs else None), {}
        if logprobs:
            return 200, completion("A", {"A": 0.6, "B": 0.3, "C": 0.1}), {}
        return 200, completion("B" if swapped else "A"), {}                  # consistent across orders
    return script


@pytest.mark.parametrize("logprobs", [True, False])
def test_every_order_answered_is_saved_and_never_asked_again(db, study, logprobs):
    server = FakeOpenAI(sure_script(logprobs))
    try:
        config = JudgeConfig(model="small", base_url=server.base_url, samples=3, concurrency=4, logprobs=logprobs)
        summary = run_judge(db, study, config)
        calls = judge_calls.finished(db, study, "small")
        assert len(calls) == 2 * len(PAIRS)                              # 16 of 16 orders saved
        assert {k for k, v in calls.items() if v is None} == {(i, True) for i in SURE}
        assert summary["scored"] == len(PAIRS) - len(SURE)
        assert summary["unscored"] == {"no_letter": len(SURE), "orders_disagree": 0, "not_asked": 0}
        sent = len(server.requests)
        assert sent == 2 * len(PAIRS) * (1 if logprobs else 3)
        run_judge(db, study, config)                                     # a second run pays nothing
        assert len(server.requests) == sent
        from fairval.store import audit
        runs = [r["details"] for r in audit.entries(db, study) if r["action"] == "lmra.run"]
        assert runs == [{"model": "small", "base_url": server.base_url, "orders": 2 * len(PAIRS)},
                        {"model": "small", "base_url": server.base_url, "orders": 0}]       # both runs recorded
    finally:
        server.close()


def test_a_billing_refusal_stops_at_once_and_a_throttle_is_retried(db, study):
    quota = {"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
                       "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}
    throttle = {"error": {"message": "Rate limit reached", "type": "requests", "param": None,
                          "code": "rate_limit_exceeded"}}

    def script(request, number):
        if number == 2:
            return 429, throttle, {"Retry-After": "0"}                 # a throttle: retried
        if number >= 6:
            return 429, quota, {}                                        # out of credit: stop
        return 200, completion("A", {"A": 0.6, "B": 0.3, "C": 0.1}), {}

    server = FakeOpenAI(script)
    waits = []
    try:
        config = JudgeConfig(model="m", base_url=server.base_url, concurrency=1)
        with pytest.raises(QuotaRefused, match="billing"):
            run_judge(db, study, config, sleep=waits.append)
        assert len(server.requests) == 6                                 # the quota answer was not retried
        assert waits == [0.0]                                            # only the throttle waited
        assert len(judge_calls.finished(db, study, "m")) == 4            # every paid answer kept
    finally:
        server.close()


def test_samples_paid_before_a_failure_are_kept_and_never_asked_again(db, study):
    """--no-logprobs --samples 3: the server fails (500, for good) after two of one order's three samples.
    The two are stored; the resume asks that order only for its third; the order is paid 3 times in all."""
    broken = {"on": True}
    asked: dict[tuple[str, bool], int] = {}

    def script(request, number):
        item, swapped = which(request)
        if broken["on"] and (item, swapped) == ("p3", True) and asked.get(("p3", True), 0) >= 2:
            return 500, {"error": {"message": "upstream fell over", "type": "server_error"}}, {}
        asked[(item, swapped)] = asked.get((item, swapped), 0) + 1
        return 200, completion("B" if swapped else "A"), {}

    server = FakeOpenAI(script)
    try:
        config = JudgeConfig(model="m", base_url=server.base_url, samples=3, concurrency=1, logprobs=False,
                             max_retries=1)
        with pytest.raises(JudgeError, match="answered 500: upstream fell over") as failed:
            run_judge(db, study, config, sleep=lambda s: None)
        assert "order(s) left for a resume" in str(failed.value)
        assert judge_calls.samples(db, study, "m")[("p3", True)] == [("B", 100, 1), ("B", 100, 1)]
        broken["on"] = False
        summary = run_judge(db, study, config, sleep=lambda s: None)
    finally:
        server.close()
    assert asked[("p3", True)] == 3                        # two before the failure, one after: none twice
    assert all(n == 3 for n in asked.values()) and len(asked) == 2 * len(PAIRS)
    assert summary["scored"] == len(PAIRS) and summary["this_run"]["left"] == 0
    assert judge_calls.finished(db, study, "m")[("p3", True)] == [0.0, 1.0, 0.0]


def test_a_server_that_drips_its_answer_is_cut_off_and_the_run_says_so(db, study):
    def script(request, number):
        return 200, completion("A", {"A": 0.6, "B": 0.3, "C": 0.1}), {DRIP: "0.5"}

    server = FakeOpenAI(script)
    try:
        config = JudgeConfig(model="m", base_url=server.base_url, concurrency=2, max_retries=1, timeout=1.5)
        with pytest.raises(JudgeError) as failed:
            run_judge(db, study, config, sleep=lambda s: None)
    finally:
        server.close()
    message = str(failed.value)
    assert "no whole answer within 1.5 s, 2 times" in message and "16 order(s) left for a resume" in message
    assert judge_calls.finished(db, study, "m") == {}


def test_a_judge_server_that_answers_html_is_one_sentence(db, study):
    server = FakeOpenAI(lambda request, number: (200, b"<html><body>Sign in to the proxy</body></html>", {}))
    try:
        config = JudgeConfig(model="m", base_url=server.base_url, concurrency=1)
        with pytest.raises(JudgeError, match="not a chat completion"):
            run_judge(db, study, config, sleep=lambda s: None)
    finally:
        server.close()
