"""fairval as a lab installs it: the wheel built from this checkout, installed into a new venv, run from an
empty folder with no checkout on the path. The demo, every command group, the Python API, and
`fairval serve --workers 2` reaching a study's consent page and a researcher page in real Chromium."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest

from bench.streamlit_server import healthy
from tests.conftest import ROOT, write_jsonl
from tests.e2e.conftest import PASSWORD, free_port, wait_text

pytestmark = pytest.mark.e2e
DEMO_STUDIES = ["demo-templates", "demo-pairs", "demo-names", "demo-features", "demo-scenarios"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(wheel, what the build printed): `pip wheel -v` shows the build backend's output, which pip hides
    without -v; a lab that installs with -v (or whose install fails) reads it."""
    folder = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", str(folder / "dist"), str(ROOT)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return next((folder / "dist").glob("fairval-*.whl")), done.stdout + done.stderr


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory):
    """(venv, wheel): the wheel pip builds from the checkout, installed with the pinned dependencies."""
    wheel, _ = built
    venv = tmp_path_factory.mktemp("installed") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-c", str(ROOT / "constraints.txt"),
                    str(wheel)], check=True, capture_output=True)
    return venv, wheel


def clean_env(**extra) -> dict:
    """The user's environment: nothing of the checkout or of this test's own venv on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "FAIRVAL_DB")}
    return {**env, **extra}


def fairval(venv: Path, cwd: Path, *args, ok: bool = True, **env) -> subprocess.CompletedProcess:
    done = subprocess.run([str(venv / "bin" / "fairval"), "--db", "d.db", *map(str, args)], cwd=cwd,
                          env=clean_env(**env), capture_output=True, text=True, timeout=300)
    if ok:
        assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
    return done


def test_the_wheel_holds_one_import_name_and_every_file_the_app_reads(built):
    wheel, _ = built
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"fairval"}, top
    for needed in ("fairval/app.py", "fairval/serve.py", "fairval/pages/1_Results.py",
                   "fairval/pages/3_Manage.py", "fairval/server/boot.js", "fairval/ui/card/answer_card.js",
                   "fairval/ui/card/answer_card.css", "fairval/pyproject.toml", "fairval/ui/rater.css",
                   "fairval/examples/pairs.jsonl", "fairval/.streamlit/config.toml", "fairval/api.py", "fairval/errors.py",
                   "fairval/py.typed"):
        assert needed in names, f"{needed} is not in {wheel.name}"
    for data in [*(ROOT / "examples").glob("*.jsonl"), *(ROOT / "ui" / "locale").glob("*/LC_MESSAGES/*.po")]:
        assert f"fairval/{data.relative_to(ROOT).as_posix()}" in names, f"{data} is not in {wheel.name}"
    assert not any(n.startswith(("fairval/tests", "fairval/bench", "fairval/build", "fairval/tools", "fairval/docs",
                                 "fairval/deploy", "fairval/.typing")) for n in names)


def test_the_installed_package_is_fairval_without_the_checkouts_tests_benchmarks_or_build(installed, tmp_path):
    """In a checkout these folders sit inside the package's folder (the top is the package); installed, they
    are not there to import."""
    venv, _ = installed
    code = ("import importlib, fairval\n"
            "for name in ('fairval.tests', 'fairval.bench', 'fairval.build', 'fairval.tools'):\n"
            "    try:\n"
            "        importlib.import_module(name)\n"
            "    except ModuleNotFoundError:\n"
            "        continue\n"
            "    raise SystemExit(name + ' imports')\n"
            "print(fairval.files())\n")
    done = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=tmp_path, env=clean_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert str(venv) in done.stdout and str(ROOT) not in done.stdout


def test_the_build_prints_no_warning(built):
    """setuptools warns "Package would be ignored" for a folder of package data (examples/, ui/locale/*/
    LC_MESSAGES/) that [tool.setuptools] packages does not list. PYTHONDONTWRITEBYTECODE in the caller's
    environment makes distutils say "byte-compiling is disabled": the environment's choice, not the build's."""
    _, printed = built
    warnings = [line.strip() for line in printed.splitlines()
                if "warn" in line.lower() and "byte-compiling is disabled" not in line]
    assert not warnings, "\n".join(warnings)


def test_the_installed_commands_work_from_an_empty_folder(installed, tmp_path):
    venv, _ = installed
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import fairval; print(fairval.__file__)"],
                           cwd=tmp_path, env=clean_env(), capture_output=True, text=True, check=True).stdout
    assert str(venv) in where and str(ROOT) not in where                 # the wheel's copy, not the checkout's
    assert "demo-pairs" in fairval(venv, tmp_path, "demo", "--no-serve").stdout
    fairval(venv, tmp_path, "study", "create", "mine", "--task", "template_quality", "--raters-per-item", "1")
    items = write_jsonl(tmp_path / "items.jsonl", [{"id": f"t{k}", "filled_template": f"Question {k}: approve?",
                                                    "decision_question_id": k} for k in range(3)])
    assert "imported 3 items" in fairval(venv, tmp_path, "items", "import", "mine", items).stdout
    ratings = write_jsonl(tmp_path / "ratings.jsonl", [{"item_id": f"t{k}", "rater_id": "r1", "question": q,
                                                        "value": 5} for k in range(3)
                                                       for q in ("quality", "yes_positive")])
    assert "imported 6 ratings" in fairval(venv, tmp_path, "ratings", "import", "mine", ratings).stdout
    scores = write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": "p1", "model": "other", "score": 0.5}])
    said = fairval(venv, tmp_path, "lmra", "import", "demo-pairs", scores, ok=False)
    assert said.returncode == 1 and "no item 'p1'" in said.stderr and "Traceback" not in said.stderr
    assert "mine" in fairval(venv, tmp_path, "study", "list").stdout
    fairval(venv, tmp_path, "export", "mine", "--out", tmp_path / "valid.jsonl")
    fairval(venv, tmp_path, "export-ratings", "demo-pairs", "--out", tmp_path / "r.csv")
    fairval(venv, tmp_path, "report", "demo-pairs", "--out", tmp_path / "report.html")
    assert "demo-judge" in fairval(venv, tmp_path, "compare", "demo-pairs").stdout
    assert (tmp_path / "report.html").stat().st_size > 10_000
    assert "crowd-1" in fairval(venv, tmp_path, "prolific", "review", "demo-pairs").stdout


def test_the_python_api_gives_what_analyze_json_prints_on_every_demo_study(installed, tmp_path):
    venv, _ = installed
    fairval(venv, tmp_path, "demo", "--no-serve")
    # the command line prints the API's numbers to 12 significant digits (annotate.outputs.formats.plain_number)
    code = ("import json, sys, fairval\n"
            "from fairval.annotate.outputs.formats import plain_number\n"
            "db = fairval.open('d.db')\n"
            "print(json.dumps({s: plain_number(db.study(s).analyze().to_dict()) for s in db.studies()}))\n")
    api = json.loads(subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=tmp_path, env=clean_env(),
                                    capture_output=True, text=True, check=True).stdout)
    assert sorted(api) == sorted(DEMO_STUDIES)
    for study in DEMO_STUDIES:
        printed = json.loads(fairval(venv, tmp_path, "analyze", study, "--json").stdout)
        assert printed == api[study], study


def test_the_installed_app_serves_with_two_workers_in_chromium(installed, tmp_path, browser):
    venv, _ = installed
    fairval(venv, tmp_path, "demo", "--no-serve")
    port = free_port()
    log = open(tmp_path / "serve.log", "w")
    process = subprocess.Popen([str(venv / "bin" / "fairval"), "--db", "d.db", "serve", "--workers", "2",
                                "--port", str(port), "--address", "127.0.0.1"], cwd=tmp_path,
                               env=clean_env(FAIRVAL_RESEARCHER_PASSWORD=PASSWORD), stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        assert healthy(url, within=120), (tmp_path / "serve.log").read_text()
        # installed, Streamlit finds the card's asset directory in the package's pyproject.toml and serves its script
        card = f"{url}/_stcore/bidi-components/fairval.fairval_answer_card/answer_card.js"
        with urllib.request.urlopen(card) as js:
            assert b"function" in js.read()
        page = browser.new_page()
        page.goto(f"{url}/?study=demo-templates&rater=wheel-rater")
        wait_text(page, "I agree to take part")
        page.get_by_role("button", name="I agree to take part").click()
        wait_text(page, "About you")
        page.goto(f"{url}/Results")
        wait_text(page, "Researcher sign-in")
        page.get_by_label("Password", exact=True).fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        wait_text(page, "Items complete")
        page.close()
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(30)
        log.close()
