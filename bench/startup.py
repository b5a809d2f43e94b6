"""Starting fairval the way a user meets it: the whole `fairval --help` command, and the memory of the
process that supervises `fairval serve`.

Each figure is set beside the same command started with a module imported first: sqlite-utils (what
opening the database through it would add: it imports pandas and numpy when they are installed), and the
analysis libraries (pandas, scipy, krippendorff, pyarrow: what every command and the serve parent
carried before the command line imported a command's rooms only when it runs). Run interleaved.
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.streamlit_server import ROOT, Running, children, free_port

PRELOADS = {"as shipped": "", "sqlite-utils imported": "import sqlite_utils; ",
            "analysis libraries imported": "import pandas, scipy.stats, krippendorff, pyarrow; "}


def _fairval(preload: str) -> list[str]:
    return [sys.executable, "-c", f"{preload}from fairval.annotate.cli.main import main; main()"]


def help_seconds(preload: str) -> float:
    started = time.perf_counter()
    subprocess.run([*_fairval(preload), "--help"], cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - started


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def serve_rss(preload: str, db: Path) -> tuple[float, float]:
    """(parent, its Streamlit worker) resident MiB once the server answers."""
    port = free_port()
    server = Running([*_fairval(preload), "--db", str(db), "serve", "--port", str(port), "--address", "127.0.0.1"],
                     port)
    try:
        worker = max(children(server.process.pid), key=rss_mib)
        return rss_mib(server.process.pid), rss_mib(worker)
    finally:
        server.stop()


def run(folder: Path, quick: bool = False) -> list[str]:
    rounds = 3 if quick else 15
    times: dict[str, list[float]] = {name: [] for name in PRELOADS}
    for _ in range(rounds):                      # interleaved: a busy moment hits every variant alike
        for name, preload in PRELOADS.items():
            times[name].append(help_seconds(preload))
    shipped = statistics.median(times["as shipped"])
    lines = ["fairval --help: " + "; ".join(
        f"{name} {statistics.median(t):.2f} s ({statistics.median(t) / shipped:.1f}x)" for name, t in times.items())
        + f"; median of {rounds}, interleaved"]
    db = Path(tempfile.mkdtemp(dir=folder)) / "serve.db"
    rss = {name: serve_rss(preload, db) for name, preload in PRELOADS.items()}
    parent = rss["as shipped"][0]
    lines.append("fairval serve, supervising parent resident: " + "; ".join(
        f"{name} {p:.0f} MiB ({p / parent:.1f}x)" for name, (p, _) in rss.items())
        + f"; beside a {rss['as shipped'][1]:.0f} MiB Streamlit worker")
    return lines
