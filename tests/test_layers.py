"""The layers stay clean: analysis is pure, only store speaks SQL, pages are thin, every room of
annotate/ imports only the rooms below it, and no module imports itself round a circle."""
import ast
import subprocess
import sys

import pytest

from tests.conftest import ROOT

PACKAGES = ("annotate", "store", "analysis", "ui")
# annotate's rooms, lowest first: a room may import only rooms before it (and store/, analysis/).
ROOMS = ["material", "rating", "results", "outputs", "judge", "crowd", "serving", "cli"]
ROOM_MAY_ALSO_NOT = {"serving": {"material", "rating", "results", "outputs", "judge", "crowd", "analysis"}}


def import_nodes(path):
    """The modules a file imports, ours named by their folder (fairval.store.engine as store.engine)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):                              # lazy imports inside functions count too
        if isinstance(node, ast.Import):
            yield from (_ours(a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield _ours(node.module)
            yield from (_ours(f"{node.module}.{a.name}") for a in node.names)   # `from annotate import x`


def _ours(name: str) -> str:
    return name.removeprefix("fairval.")


def imports(path) -> set[str]:
    return {name.split(".")[0] for name in import_nodes(path)}


def module_name(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def files(folder):
    return sorted((ROOT / folder).rglob("*.py"))


def our_modules() -> dict[str, set[str]]:
    """module -> the modules of ours it imports (a `from x import name` counts as x.name when that is a module)."""
    paths = {module_name(p): p for pkg in PACKAGES for p in files(pkg)}
    graph = {}
    for name, path in paths.items():
        graph[name] = {m for m in import_nodes(path) if m in paths and m != name}
    return graph


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


def test_every_annotate_module_sits_in_a_room_and_imports_only_rooms_below():
    loose = [p.name for p in (ROOT / "annotate").glob("*.py") if p.name not in ("__init__.py", "errors.py")]
    assert not loose, f"modules outside a room: {loose}"
    assert sorted(p.name for p in (ROOT / "annotate").iterdir() if (p / "__init__.py").exists()) == sorted(ROOMS)
    for room in ROOMS:
        init = ROOT / "annotate" / room / "__init__.py"
        assert ast.get_docstring(ast.parse(init.read_text())), f"annotate/{room}/ says nothing of what it holds"
        allowed = set(ROOMS[:ROOMS.index(room) + 1]) - ROOM_MAY_ALSO_NOT.get(room, set())
        for path in files(f"annotate/{room}"):
            used = {m.split(".")[1] for m in import_nodes(path) if m.startswith("annotate.") and
                    m.split(".")[1] in ROOMS}
            assert used <= allowed, f"{path.relative_to(ROOT)} imports the rooms {sorted(used - allowed)}"
            if room in ROOM_MAY_ALSO_NOT:
                assert not imports(path) & {"analysis", "pandas", "scipy", "numpy"}, path


def test_only_the_entry_point_imports_the_command_line():
    for pkg in ("store", "analysis", "ui", "pages", "annotate"):
        for path in files(pkg):
            if "cli" in path.relative_to(ROOT).parts:
                continue
            assert not any(m.startswith("annotate.cli") for m in import_nodes(path)), path


def test_no_import_circles():
    graph = our_modules()
    state: dict[str, int] = {}

    def visit(node, trail):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                raise AssertionError("import circle: " + " → ".join(trail[trail.index(nxt):] + [nxt]))
            if nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2

    assert "store.engine" in graph and "annotate.rating.session" in graph   # the walk sees the packages
    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


@pytest.mark.parametrize("argv", [["--help"], ["study", "--help"], ["serve", "--help"]])
def test_the_command_line_loads_no_analysis_libraries_until_a_command_needs_them(argv):
    code = ("import sys\nfrom fairval.annotate.cli.main import cli\n"
            f"try:\n    cli.main({argv!r}, standalone_mode=False)\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('pandas', 'scipy', 'numpy', 'krippendorff', 'altair', 'pyarrow', 'openai', "
            "'streamlit') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout


def test_a_command_does_load_what_it_needs(tmp_path):
    """The check above can fail: a command that computes numbers does bring pandas in."""
    db = tmp_path / "f.db"
    code = ("import sys\nfrom fairval.annotate.cli.main import cli\n"
            f"for argv in (['--db', {str(db)!r}, 'study', 'create', 's', '--task', 'template_quality'],"
            f" ['--db', {str(db)!r}, 'analyze', 's', '--json']):\n"
            "    try:\n        cli.main(argv, standalone_mode=False)\n    except SystemExit:\n        pass\n"
            "print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "True", out.stdout + out.stderr


def test_app_and_pages_are_thin():
    for path in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]:
        code = [s for s in path.read_text().splitlines() if s.strip() and not s.lstrip().startswith(("#", '"""'))]
        assert len(code) <= 6, f"{path.name} has {len(code)} lines of code; move logic to ui/ or annotate/"
        if path.parent.name == "pages":
            assert "require_researcher(" in path.read_text()         # every page guards itself first


def test_import_fairval_loads_no_analysis_library():
    """A notebook's `import fairval` (and opening a database) stays light: pandas and scipy come with a number."""
    code = ("import sys, fairval\nfairval.open(':memory:')\n"
            "print(sorted(m for m in ('pandas', 'scipy', 'numpy', 'krippendorff', 'altair', 'pyarrow', 'openai', "
            "'streamlit') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout


def test_the_wheel_installs_one_import_name():
    """Every folder mapped into the package lands under fairval/ (pyproject's package-dir), nothing beside it."""
    import tomllib
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert {p.split(".")[0] for p in setup["packages"]} == {"fairval"}
    assert set(setup["package-dir"]) <= set(setup["packages"])
    rooms = sorted(p.name for p in (ROOT / "annotate").iterdir() if (p / "__init__.py").exists())
    assert {f"fairval.annotate.{r}" for r in rooms} <= set(setup["packages"]), "a room of annotate/ is not shipped"
