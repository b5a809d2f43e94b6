"""New sessions are counted per network at the HAProxy front (issue 58): an IPv6 client holds a whole /64 and can
open each session from another address of it, so the bound keys IPv6 on its /64; IPv4 stays per address, and a
client's own X-Forwarded-For never picks the key. Real HAProxy in a network namespace of its own (front_netns.py),
where the loopback holds addresses of two /64s; clients bind those addresses as their source."""
import json
import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

HELPER = ROOT / "tests" / "annotate" / "serving" / "front_netns.py"
ONE_HOME = [f"2001:db8:1::{k:x}" for k in range(1, 9)]           # one /64, eight addresses of it
NEIGHBOUR = "2001:db8:2::1"                                       # the next /64: another home
LIAR = "2001:db8:3::1"


def _namespaces() -> str | None:
    """Why this machine cannot give the test a network namespace, or None when it can."""
    if not shutil.which("unshare") or not shutil.which("ip"):
        return "unshare (util-linux) and ip (iproute2) are needed to give the loopback other IPv6 addresses"
    probe = subprocess.run(["unshare", "-rn", "ip", "-6", "addr", "add", "2001:db8::1/64", "dev", "lo"],
                           capture_output=True, text=True)
    return None if probe.returncode == 0 else f"no network namespace here: {probe.stderr.strip()}"


def run_front(job: dict) -> dict:
    why = _namespaces()
    if why:
        pytest.skip(why)
    done = subprocess.run(["unshare", "-rn", sys.executable, str(HELPER)], input=json.dumps(job), cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def keys(table: str) -> dict[str, int]:
    """HAProxy's `show table` lines: key -> its http_req_rate."""
    return {k: int(v) for k, v in re.findall(r"key=(\S+) .*?http_req_rate\(\d+\)=(\d+)", table)}


WS = "/_stcore/stream"


def test_an_ipv6_home_rotating_through_its_64_is_one_client_and_ipv4_stays_per_address():
    """Five sessions allowed per 10 s: eight addresses of one /64 get five, the sixth on is turned back (on main
    every address was a client of its own: all eight got in). The next /64 and two IPv4 addresses are not
    held back, and each IPv4 address is counted apart even though HAProxy listens on both families."""
    requests = ([[a, WS, {}] for a in ONE_HOME] + [[ONE_HOME[0], "/", {}]] + [[NEIGHBOUR, WS, {}]]
                + [["127.0.0.2", WS, {}]] * 5 + [["127.0.0.3", WS, {}]])
    out = run_front({"addresses": [*ONE_HOME, NEIGHBOUR], "config": {"sessions_per_10s": 5, "sessions_per_3min": 1000},
                     "requests": requests})
    statuses = [status for status, _ in out["answers"]]
    assert statuses[:8] == [200] * 5 + [429] * 3, statuses[:8]
    assert statuses[8] == 429                        # the home's page loads say why too
    assert statuses[9:] == [200] * 7, statuses[9:]   # another home, and IPv4 addresses, untouched
    assert "reload" in out["answers"][5][1]
    # HAProxy's own table: one key for the home's /64, one for the neighbour's, one per IPv4 address
    counted = keys(out["tables"]["sessions_10s"])
    assert counted == {"2001:db8:1::": 8, "2001:db8:2::": 1, "::ffff:127.0.0.2": 5, "::ffff:127.0.0.3": 1}, counted


def test_a_client_that_writes_its_own_x_forwarded_for_is_still_counted_by_its_network():
    """Each session from the same /64 names another address in X-Forwarded-For (and Forwarded); HAProxy counts
    the TCP source's /64 all the same, and keeps no key of the names the client wrote."""
    lies = [[LIAR, WS, {"X-Forwarded-For": f"198.51.100.{k}", "Forwarded": f"for=\"[2001:db8:9::{k}]\""}]
            for k in range(1, 5)]
    out = run_front({"addresses": [LIAR], "config": {"sessions_per_10s": 3, "sessions_per_3min": 1000},
                     "requests": lies})
    assert [status for status, _ in out["answers"]] == [200, 200, 200, 429]
    assert keys(out["tables"]["sessions_10s"]) == {"2001:db8:3::": 4}
