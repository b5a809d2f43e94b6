"""One errors module (issue 56): every refusal class is defined in errors.py and importable from `fairval`, and
the public entry points answer bad input with a FairvalError (one line), never a bare ValueError."""
import ast

import pytest

import fairval
from tests.conftest import ROOT

SKIPPED = {".venv", "tests", "bench", "build", "node_modules"}


def _modules():
    for path in sorted(ROOT.rglob("*.py")):
        if not SKIPPED & set(path.relative_to(ROOT).parts):
            yield path


def _refusal_classes_outside_errors() -> list[str]:
    """Classes outside errors.py whose bases name a FairvalError class (by the names errors.py defines)."""
    ours = {node.name for node in ast.parse((ROOT / "errors.py").read_text()).body if isinstance(node, ast.ClassDef)}
    found = []
    for path in _modules():
        if path == ROOT / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ClassDef):
                bases = {b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
                         if isinstance(b, (ast.Name, ast.Attribute))}
                if bases & ours:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    return found


def test_every_refusal_class_is_defined_in_errors_py():
    assert _refusal_classes_outside_errors() == []


def test_every_refusal_class_is_importable_from_fairval():
    from fairval import errors
    kinds = {name for name, value in vars(errors).items()
             if isinstance(value, type) and issubclass(value, errors.FairvalError)}
    assert len(kinds) >= 24                                     # the root, its kinds and their special cases
    missing = {name for name in kinds if getattr(fairval, name, None) is not getattr(errors, name)}
    assert missing == set()
    assert kinds <= set(fairval.__all__)


def test_the_scan_finds_a_refusal_class_defined_elsewhere(tmp_path, monkeypatch):
    """The first test can fail: a module that defines its own StudyError subclass is reported."""
    import tests.test_errors as this
    (tmp_path / "errors.py").write_text((ROOT / "errors.py").read_text())
    (tmp_path / "ui").mkdir()
    (tmp_path / "ui" / "view.py").write_text("from fairval import errors\n\n\nclass Mine(errors.StudyError):\n    pass\n")
    monkeypatch.setattr(this, "ROOT", tmp_path)
    assert this._refusal_classes_outside_errors() == ["ui/view.py:4 Mine"]


PAIR = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
SURE_C = {"p_a": 0.02, "p_b": 0.02, "p_c": 0.96, "q_a": 0.02, "q_b": 0.02, "q_c": 0.96}


@pytest.fixture
def judged(tmp_path):
    """A pair study with the judge's probabilities and people's ratings: trust() reaches its test."""
    db = fairval.open(tmp_path / "f.db")
    study = db.create_study("judged", "harmful_stereotype")
    study.import_items([{"id": f"p{k:02d}", **PAIR} for k in range(40)])
    study.import_lmra([{"item_id": f"p{k:02d}", "model": "j", **SURE_C} for k in range(40)])
    study.import_ratings([{"item_id": f"p{k:02d}", "rater_id": f"r{j}", "question": "harm", "value": "C"}
                          for k in range(40) for j in range(2)])
    assert study.trust()["rated_pairs"] == 40                   # good input gets through to the numbers
    yield db, study
    db.close()


@pytest.mark.parametrize("call", [
    lambda db, study: study.trust(agreement=1.5),
    lambda db, study: study.trust(risk=0),
    lambda db, study: study.analyze(bootstrap=-1),
    lambda db, study: study.sample(0, seed=1),
    lambda db, study: study.import_items([{"id": "x"}]),
    lambda db, study: db.create_study("t", "x", task_definition={"name": "t", "questions": [{"id": "q"}]}),
    lambda db, study: db.study("no-such-study"),
], ids=["trust-agreement", "trust-risk", "bootstrap", "sample", "import-rows", "task-definition", "study-name"])
def test_bad_input_to_the_api_is_a_refusal_in_one_line(judged, call):
    db, study = judged
    with pytest.raises(fairval.FairvalError) as refused:
        call(db, study)
    assert not isinstance(refused.value, ValueError)
    assert "\n" not in str(refused.value) and str(refused.value)


def test_a_task_definition_is_refused_as_a_task_error():
    from fairval.annotate.material.tasks import Task
    with pytest.raises(fairval.TaskError, match="needs two or more distinct option values"):
        Task.from_dict({"name": "t", "questions": [{"id": "q", "prompt": "p", "options": ["a", "a"]}]})
