"""The layers stay clean: analysis is pure, only store speaks SQL, pages are thin, every room of
annotate/ imports only the rooms below it, and no module imports itself round a circle."""
import ast
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

PACKAGES = ("annotate", "store", "analysis", "ui", "server")
# annotate's rooms, lowest first: a room may import only rooms before it (and store/, analysis/).
ROOMS = ["material", "rating", "results", "outputs", "judge", "crowd", "serving", "cli"]
ROOM_MAY_ALSO_NOT = {"serving": {"material", "rating", "results", "outputs", "judge", "crowd", "analysis"}}
# A room that holds one design across layers: each of its modules sits at the layer of the room named here.
SPANNING = {"adaptive": {"next_pair": "rating", "prefix_interval": "rating", "estimate": "results"}}


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
    ("ui", {"sqlite3", "sqlite_utils", "openai", "starlette", "server"}),    # views; the web server's routes are server/
    ("server", {"sqlite3", "sqlite_utils", "openai", "ui", "analysis"}),    # routes and middleware, no views
    ("pages", {"sqlite3", "sqlite_utils", "openai", "store", "analysis"}),
]


@pytest.mark.parametrize("folder, forbidden", RULES)
def test_layer(folder, forbidden):
    assert files(folder), f"no modules in {folder}/"
    for path in files(folder):
        crossed = imports(path) & forbidden
        assert not crossed, f"{path.relative_to(ROOT)} imports {sorted(crossed)}"


SQL = re.compile(r"\b(SELECT\s.*?\bFROM\s+\w+|INSERT\s+INTO\s+\w+|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\s+\w+|"
                 r"(CREATE|ALTER|DROP)\s+(TABLE|INDEX|UNIQUE|VIEW)\b)", re.DOTALL)


def sql_text(path) -> list[str]:
    """The string literals of a module that read as SQL (docstrings left out: they may talk of it)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docs and SQL.search(n.value)]


def test_server_holds_routes_and_middleware_and_no_views():
    for path in files("server"):
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text())
        assigned = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        middleware = {n.name for n in tree.body if isinstance(n, ast.ClassDef)
                      and any(isinstance(f, ast.AsyncFunctionDef) and f.name == "__call__" for f in n.body)}
        assert "ROUTES" in assigned or middleware, f"{path.relative_to(ROOT)} is neither routes nor middleware"
        assert "import streamlit as st" not in path.read_text(), f"{path.relative_to(ROOT)} draws a Streamlit view"


def test_only_store_holds_sql_text():
    outside = list(sorted(ROOT.glob("*.py")) + files("pages")) + \
        [p for pkg in PACKAGES if pkg != "store" for p in files(pkg)]
    for path in outside:
        found = sql_text(path)
        assert not found, f"{path.relative_to(ROOT)} holds SQL ({found[0][:60]!r}): move it behind a store/ function"
    assert all(sql_text(p) for p in (ROOT / "store" / "loads.py", ROOT / "store" / "schema.py"))  # the check sees SQL


def layer_of(module: str) -> str | None:
    """The room whose layer an annotate module sits at (a spanning room's package alone sits lowest)."""
    parts = module.split(".")
    if parts[0] != "annotate" or len(parts) < 2:
        return None
    if parts[1] in SPANNING:
        return SPANNING[parts[1]][parts[2]] if len(parts) > 2 else ROOMS[0]
    return parts[1] if parts[1] in ROOMS else None


def test_every_annotate_module_sits_in_a_room_and_imports_only_rooms_below():
    loose = [p.name for p in (ROOT / "annotate").glob("*.py") if p.name != "__init__.py"]
    assert not loose, f"modules outside a room: {loose}"
    assert sorted(p.name for p in (ROOT / "annotate").iterdir() if (p / "__init__.py").exists()) == \
        sorted(ROOMS + list(SPANNING))
    for room, modules in SPANNING.items():
        held = {p.stem for p in files(f"annotate/{room}") if p.name != "__init__.py"}
        assert held == set(modules), f"annotate/{room}/ holds {sorted(held)}; name each one's layer in SPANNING"
    for room in ROOMS + list(SPANNING):
        init = ROOT / "annotate" / room / "__init__.py"
        assert ast.get_docstring(ast.parse(init.read_text())), f"annotate/{room}/ says nothing of what it holds"
        for path in files(f"annotate/{room}"):
            layer = layer_of(module_name(path))
            assert layer is not None
            allowed = set(ROOMS[:ROOMS.index(layer) + 1]) - ROOM_MAY_ALSO_NOT.get(layer, set())
            used = {layer_of(m) for m in import_nodes(path)} - {None}
            assert used <= allowed, f"{path.relative_to(ROOT)} imports the rooms {sorted(used - allowed)}"
            if layer in ROOM_MAY_ALSO_NOT:
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
                raise AssertionError("import circle: " + " → ".join([*trail[trail.index(nxt):], nxt]))
            if nxt not in state:
                visit(nxt, [*trail, nxt])
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
    assert setup["package-dir"] == {"fairval": "."}, "the repository's top is the package, folder for folder"
    shipped = {"fairval." + ".".join(p.parent.relative_to(ROOT).parts) for pkg in PACKAGES
               for p in (ROOT / pkg).rglob("__init__.py")}
    assert shipped <= set(setup["packages"]), f"not shipped: {sorted(shipped - set(setup['packages']))}"
    assert not any(p.startswith(("fairval.tests", "fairval.bench")) for p in setup["packages"])


def test_every_fairval_import_lands_on_its_file():
    """A reader (or a path-based tool) opens fairval.x.y at x/y.py: no module is put together at import time."""
    code = list(sorted(ROOT.glob("*.py")) + files("pages") + files("tests") + files("bench")) + \
        [p for pkg in PACKAGES for p in files(pkg)]
    checked = 0
    for path in code:
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else []
            for name in names:
                if name == "fairval" or not name.startswith("fairval."):
                    continue
                where = ROOT.joinpath(*name.split(".")[1:])
                assert where.with_suffix(".py").is_file() or (where / "__init__.py").is_file(), \
                    f"{path.relative_to(ROOT)} imports {name}, which is neither {where.relative_to(ROOT)}.py nor a folder"
                checked += 1
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and \
                    ast.unparse(node.value) == "sys.modules" and "tests" not in path.relative_to(ROOT).parts:
                raise AssertionError(f"{path.relative_to(ROOT)} writes sys.modules")
    assert checked > 500, checked                  # the walk saw the code base's imports
