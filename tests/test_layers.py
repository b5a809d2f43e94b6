"""The layers stay clean: analysis is pure, only store speaks SQL, pages are thin."""
import ast

import pytest

from tests.conftest import ROOT


def imports(path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def files(folder):
    return sorted((ROOT / folder).glob("*.py"))


RULES = [
    ("analysis", {"streamlit", "sqlite3", "sqlite_utils", "openai", "store", "annotate", "ui"}),
    ("store", {"streamlit", "openai", "annotate", "analysis", "ui"}),
    ("annotate", {"streamlit", "sqlite3", "sqlite_utils", "ui"}),
    ("ui", {"sqlite3", "sqlite_utils", "openai"}),
    ("pages", {"sqlite3", "sqlite_utils", "openai", "store", "analysis"}),
]


@pytest.mark.parametrize("folder, forbidden", RULES)
def test_layer(folder, forbidden):
    assert files(folder), f"no modules in {folder}/"
    for path in files(folder):
        crossed = imports(path) & forbidden
        assert not crossed, f"{path.relative_to(ROOT)} imports {sorted(crossed)}"


def test_app_and_pages_are_thin():
    for path in [ROOT / "app.py", *files("pages")]:
        code = [l for l in path.read_text().splitlines() if l.strip() and not l.lstrip().startswith(("#", '"""'))]
        assert len(code) <= 6, f"{path.name} has {len(code)} lines of code; move logic to ui/ or annotate/"
        if path.parent.name == "pages":
            assert "require_researcher()" in path.read_text()
