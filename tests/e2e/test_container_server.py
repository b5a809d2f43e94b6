"""The container image (Dockerfile; Containerfile links to it), built from this checkout with Debian's podman
and run as a lab runs it: HTTPS from mounted certificate files, settings from the environment, the database on
a volume. A rater answers through Streamlit's websocket protocol, a researcher signs in, and a new container
on the same volume finds every answer (issue 57).

No registry is reachable where the tests run, so the image's base (debian:bookworm-slim in the published
file) is made here from Debian's own packages: mmdebstrap writes a minimal bookworm once into
~/.cache/fairval/, podman imports it, and the build names it with --build-arg BASE=. `make podman` (part of
`make test`) installs podman, runc, slirp4netns and mmdebstrap from Debian."""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import ssl
import subprocess
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
import websockets
from streamlit.proto.WidgetStates_pb2 import WidgetState

from tests.conftest import ROOT, write_jsonl
from tests.e2e.conftest import free_port
from tests.e2e.streamlit_client import Tab
from tests.e2e.test_https_browser import answers, self_signed

BASE = "localhost/fairval-test-base:bookworm"
IMAGE = "localhost/fairval:test"
PASSWORD = "container-pass"
ANSWERS = [{"quality": "4", "yes_positive": "2"}, {"quality": "2", "yes_positive": "5"},
           {"quality": "5", "yes_positive": "1"}]
MIRROR = ["deb http://deb.debian.org/debian bookworm main",
          "deb http://deb.debian.org/debian bookworm-updates main",
          "deb http://deb.debian.org/debian-security bookworm-security main"]
TIMES: dict[str, float] = {}
# The first run on a machine makes the base (mmdebstrap) and builds every layer: 2.5 min at a load average of
# 6 on 2 cores, past 5 min at 20. Later runs reuse both (about a minute for the module).
pytestmark = pytest.mark.timeout(1800)


def _cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fairval"


def _limits() -> str:
    """This machine's podman settings, kept out of its /etc: runc (crun refuses a host whose cgroups are
    mounted v1 and v2 side by side) and open-file and process limits within the caller's own hard limits
    (podman's defaults are above them where the sandbox has no CAP_SYS_RESOURCE)."""
    import resource
    files = min(resource.getrlimit(resource.RLIMIT_NOFILE)[1], 16384)
    processes = min(resource.getrlimit(resource.RLIMIT_NPROC)[1], 16384)
    return (f'[containers]\ndefault_ulimits = ["nofile={files}:{files}", "nproc={processes}:{processes}"]\n'
            '[engine]\nruntime = "runc"\n')


class Podman:
    def __init__(self, folder: Path):
        conf = folder / "containers.conf"
        conf.write_text(_limits())
        self.env = {**os.environ, "CONTAINERS_CONF": str(conf)}

    def __call__(self, *args: str, check: bool = True, timeout: float = 900) -> str:
        done = subprocess.run(["podman", *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and done.returncode:
            raise AssertionError(f"podman {' '.join(args[:3])} … failed ({done.returncode}):\n"
                                 f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return done.stdout.strip()

    def exists(self, image: str) -> bool:
        return subprocess.run(["podman", "image", "exists", image], env=self.env).returncode == 0


def _base(podman: Podman) -> None:
    """Debian 12 minbase as a local image: the tarball made once (about 20 s), imported when missing (3 s)."""
    if podman.exists(BASE):
        return
    tarball = _cache() / "debian-bookworm-minbase.tar"
    if not tarball.exists():
        if not shutil.which("mmdebstrap"):
            pytest.fail("mmdebstrap is not installed: run the README's test command (make test), which installs it")
        tarball.parent.mkdir(parents=True, exist_ok=True)
        partial = tarball.with_name(f"partial-{tarball.name}")          # renamed whole: never a half tarball
        subprocess.run(["mmdebstrap", "--variant=minbase", "--format=tar", "--quiet", "bookworm", str(partial), *MIRROR],
                       check=True, capture_output=True, timeout=900)
        partial.rename(tarball)
    podman("import", str(tarball), BASE)


def _trust() -> list[str]:
    """A machine whose HTTPS is re-signed by a proxy (as here) lends its CA bundle to the build's pip."""
    bundle = os.environ.get("PIP_CERT") or os.environ.get("SSL_CERT_FILE")
    if not bundle or not Path(bundle).is_file():
        return []
    return ["--volume", f"{Path(bundle).resolve()}:/run/build-ca.crt:ro", "--build-arg", "PIP_CERT=/run/build-ca.crt"]


@pytest.fixture(scope="module")
def podman(tmp_path_factory):
    if not shutil.which("podman"):
        pytest.fail("podman is not installed: run the README's test command (make test), which installs it")
    running = Podman(tmp_path_factory.mktemp("podman"))
    started = time.monotonic()
    _base(running)
    TIMES["base"] = time.monotonic() - started
    started = time.monotonic()
    running("build", "--format", "docker", "--build-arg", f"BASE={BASE}", *_trust(), "-t", IMAGE, str(ROOT), timeout=1800)
    TIMES["build"] = time.monotonic() - started
    return running


class Container:
    """`podman run -d` of the image with a lab's settings: the password and anything else in the environment,
    the database on a named volume at /data (or a URL in FAIRVAL_DB), the certificate files mounted
    read-only at /tls (HTTPS on 443) or none (plain HTTP on 8080), published on a free port of 127.0.0.1."""

    def __init__(self, podman: Podman, *, volume: str | None = None, tls: Path | None = None,
                 env: dict[str, str] | None = None, network: str | None = None):
        self.podman, self.name = podman, f"fairval-test-{uuid.uuid4().hex[:8]}"
        port = free_port()
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
        settings = {"FAIRVAL_RESEARCHER_PASSWORD": PASSWORD, **(env or {})}
        if tls:
            settings |= {"FAIRVAL_TLS_CERT": "/tls/cert.pem", "FAIRVAL_TLS_KEY": "/tls/key.pem"}
        options = [arg for k, v in settings.items() for arg in ("-e", f"{k}={v}")]
        options += ["-v", f"{volume}:/data"] if volume else []
        options += ["-v", f"{tls}:/tls:ro"] if tls else []
        options += [f"--network={network}"] if network else []
        podman("run", "-d", "--name", self.name, "--health-interval", "disable", *options,
               "-p", f"127.0.0.1:{port}:{443 if tls else 8080}", IMAGE)
        if not answers(self.url, within=180):
            raise AssertionError(f"the container did not answer; its log:\n{self.logs()}")

    def logs(self) -> str:
        done = subprocess.run(["podman", "logs", self.name], env=self.podman.env, capture_output=True, text=True)
        return done.stdout + done.stderr

    def fairval(self, *args: str) -> str:
        return self.podman("exec", self.name, "fairval", *args)

    def stop(self) -> int:
        """SIGTERM as `podman stop` sends it; the exit code of the container's command."""
        self.podman("stop", "--time", "30", self.name)
        return int(self.podman("inspect", "--format", "{{.State.ExitCode}}", self.name))

    def remove(self) -> None:
        self.podman("rm", "--force", "--volumes", "--time", "5", self.name, check=False)     # and its anonymous /data

    def study(self, items: Path) -> None:
        """The lab's first commands, run inside the container on its database."""
        self.fairval("study", "create", "tq", "--task", "template_quality", "--raters-per-item", "2", "--seed", "1")
        self.podman("cp", str(items), f"{self.name}:/tmp/items.jsonl")
        self.fairval("items", "import", "tq", "/tmp/items.jsonl")


def _connect(url: str):
    """Streamlit's websocket through the container's front, as a browser on that page opens it."""
    secure = url.startswith("https")
    return websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"],
                              additional_headers={"Origin": url}, ssl=ssl._create_unverified_context() if secure else None,
                              max_size=None, open_timeout=60, ping_interval=None)


async def _rate(url: str, rater: str, answers_: list[dict], *, new: bool) -> list[tuple[str, dict]]:
    """The rater's link: consent and Start (a new rater), then each answer submitted as the answer card
    sends it; returns (item, answers) for every item the page moved past (the answer acknowledged)."""
    done = []
    async with _connect(url) as ws:
        tab = Tab(ws, query=f"study=tq&rater={rater}")
        await tab.run()
        if new:
            await tab.press("I agree to take part")
            await tab.press("Start")
        for k, answer in enumerate(answers_):
            card = tab.card()
            assert card is not None, tab.texts()
            item = json.loads(card.json)["item"]
            trigger = WidgetState(id=f"$$STREAMLIT_INTERNAL_KEY_{card.id}__events")
            trigger.json_trigger_value = json.dumps([{"event": "submit", "value": {
                "item": item, "answers": answer, "nonce": f"{rater}-{k}"}}])
            await tab.run([trigger])
            moved = tab.card()
            assert moved is None or json.loads(moved.json)["item"] != item, tab.texts()
            done.append((item, answer))
    return done


async def _researcher(url: str) -> list[str]:
    async with _connect(url) as ws:
        tab = Tab(ws, page="Results")
        await tab.run()
        await tab.submit_form({"Password": PASSWORD}, "Sign in")
        tab.page = "Results"
        await tab.run()
        return tab.texts()


def _ratings(db: sqlite3.Connection) -> set[tuple[str, str, str, str]]:
    try:
        return {tuple(map(str, r)) for r in db.execute(
            "SELECT rater_id, item_id, question, value FROM ratings WHERE study_id = 'tq'")}
    finally:
        db.close()


def _stored(podman: Podman, volume: str) -> set[tuple[str, str, str, str]]:
    """Every rating in the SQLite file on the volume, read from the host (not through fairval)."""
    folder = Path(podman("volume", "inspect", "--format", "{{.Mountpoint}}", volume))
    return _ratings(sqlite3.connect(f"file:{folder / 'fairval.db'}?mode=ro", uri=True))


def _expected(rater: str, done: list[tuple[str, dict]]) -> set[tuple[str, str, str, str]]:
    return {(rater, item, question, value) for item, answer in done for question, value in answer.items()}


@pytest.fixture
def volume(podman):
    name = f"fairval-test-{uuid.uuid4().hex[:8]}"
    podman("volume", "create", name)
    yield name
    podman("volume", "rm", "--force", name, check=False)


def _items(folder: Path) -> Path:
    return write_jsonl(folder / "items.jsonl", [{"id": f"q{i}", "filled_template": f"Question {i}?"} for i in range(4)])


def test_a_study_served_by_the_image_keeps_every_answer_across_a_new_container(podman, volume, tmp_path):
    tls = tmp_path / "tls"
    tls.mkdir()
    self_signed(tls)
    (tls / "key.pem").chmod(0o644)      # the image's user (uid 10001) reads it: docs/deployment.md arranges it so
    containers = []
    try:
        started = time.monotonic()
        first = Container(podman, volume=volume, tls=tls)
        containers.append(first)
        TIMES["start"] = time.monotonic() - started
        users = podman("top", first.name, "user", "comm").splitlines()[1:]
        assert {line.split()[0] for line in users} == {"fairval"}, users            # HAProxy and workers too
        assert {line.split()[1] for line in users} >= {"haproxy", "python3"}, users
        podman("healthcheck", "run", first.name)             # the image's HEALTHCHECK: fails on a non-zero exit
        page = urllib.request.urlopen(f"{first.url}/Results", timeout=60, context=ssl._create_unverified_context())
        assert page.status == 200 and page.headers["X-Fairval-Worker"] in ("w0", "w1")          # HAProxy's workers
        assert page.headers["Strict-Transport-Security"] and b"<div id=\"root\">" in page.read()
        first.study(_items(tmp_path))

        ana = asyncio.run(_rate(first.url, "ana", ANSWERS[:2], new=True))
        ben = asyncio.run(_rate(first.url, "ben", ANSWERS, new=True))
        before = _expected("ana", ana) | _expected("ben", ben)
        assert len(before) == 10 and _stored(podman, volume) == before
        said = asyncio.run(_researcher(first.url))            # signed in with the password from the environment
        assert f"{len(ana) + len(ben)} / {4 * 2}" in said, said     # answers of the 4 items × 2 raters each
        first.fairval("backup", "/data/backup.db")                  # docs/deployment.md's backup, copied out
        podman("cp", f"{first.name}:/data/backup.db", str(tmp_path / "backup.db"))
        assert _ratings(sqlite3.connect(tmp_path / "backup.db")) == before

        started = time.monotonic()
        assert first.stop() == 0, first.logs()            # SIGTERM: tini → fairval serve → HAProxy, workers
        TIMES["stop"] = time.monotonic() - started
        first.remove()

        second = Container(podman, volume=volume, tls=tls)       # an upgrade: a new container, the same volume
        containers.append(second)
        assert _stored(podman, volume) == before
        again = asyncio.run(_rate(second.url, "ana", ANSWERS[2:], new=False))
        assert again and again[0][0] not in {item for item, _ in ana}         # she goes on where she was
        assert _stored(podman, volume) == before | _expected("ana", again)
    finally:
        for container in containers:
            container.remove()
        print(f"\ncontainer test times (s): {TIMES}")


def test_the_image_on_postgresql_over_plain_http_keeps_answers_across_a_restart(podman, postgres_cluster, tmp_path):
    """FAIRVAL_DB as a postgresql:// URL (the tests' PostgreSQL on the host, reached from the container's own
    network), one worker, no certificate: plain HTTP on 8080, for a lab's own proxy in front."""
    import psycopg

    url = postgres_cluster.create_database()
    inside = url.replace("@127.0.0.1:", "@10.0.2.2:")          # slirp4netns' address of the host's loopback
    container = Container(podman, env={"FAIRVAL_DB": inside, "FAIRVAL_WORKERS": "1"},
                          network="slirp4netns:allow_host_loopback=true")
    try:
        container.study(_items(tmp_path))
        done = asyncio.run(_rate(container.url, "cleo", ANSWERS[:2], new=True))
        podman("restart", "--time", "30", container.name)
        assert answers(container.url, within=180), container.logs()
        done += asyncio.run(_rate(container.url, "cleo", ANSWERS[2:], new=False))
        with psycopg.connect(url) as db:
            stored = {tuple(map(str, r)) for r in db.execute(
                "SELECT rater_id, item_id, question, value FROM ratings WHERE study_id = 'tq'")}
        assert len(done) == 3 and stored == _expected("cleo", done)
    finally:
        container.remove()


@pytest.mark.parametrize("settings, said", [
    ({}, "set FAIRVAL_RESEARCHER_PASSWORD"),
    ({"FAIRVAL_RESEARCHER_PASSWORD": "x", "FAIRVAL_TLS_CERT": "/tls/missing.pem"}, "'/tls/missing.pem' does not exist"),
], ids=["no-password", "named-certificate-missing"])
def test_the_image_refuses_to_start_in_one_line(podman, settings, said):
    """A server reachable from other machines without a password, or a certificate named but not there, is
    not started (never served as plain HTTP instead): the container exits, its log says why in a line."""
    done = subprocess.run(["podman", "run", "--rm", "--health-interval", "disable",
                           *[a for k, v in settings.items() for a in ("-e", f"{k}={v}")], IMAGE],
                          env=podman.env, capture_output=True, text=True, timeout=120)
    lines = [line for line in done.stderr.splitlines() if "systemd" not in line]     # podman's own, about timers
    assert done.returncode != 0 and any(said in line for line in lines), (done.returncode, done.stderr)
