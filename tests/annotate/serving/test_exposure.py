"""Safe by default: a server other machines can reach needs a researcher password of its own, and the demo
(whose password is published) listens on this machine only unless told otherwise."""
import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.serving.server import loopback, refuse_exposure
from fairval.errors import ServeRefused


@pytest.mark.parametrize("address, expected", [("127.0.0.1", True), ("127.0.0.2", True), ("::1", True),
                                               ("[::1]", True), ("localhost", True), (None, False),
                                               ("0.0.0.0", False), ("10.1.2.3", False), ("::", False)])
def test_loopback(address, expected):
    assert loopback(address) is expected


@pytest.mark.parametrize("address, password, demo, refused", [
    ("127.0.0.1", "", False, None), ("127.0.0.1", "demo", True, None),
    (None, "", False, "no researcher password"), ("0.0.0.0", "", False, "no researcher password"),
    ("0.0.0.0", "demo", False, "published password"), ("0.0.0.0", "demo", True, "published password"),
    ("0.0.0.0", "a-long-lab-secret", False, None)])
def test_a_reachable_server_needs_a_password_of_its_own(address, password, demo, refused):
    env = {"FAIRVAL_RESEARCHER_PASSWORD": password}
    if refused is None:
        refuse_exposure(address, env, demo=demo)
        return
    with pytest.raises(ServeRefused, match=refused):
        refuse_exposure(address, env, demo=demo)


def test_serve_on_every_interface_without_a_password_is_refused_before_it_starts(tmp_path, monkeypatch):
    monkeypatch.delenv("FAIRVAL_RESEARCHER_PASSWORD", raising=False)
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "d.db"), "serve", "--address", "0.0.0.0"])
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert "no researcher password" in result.output and "--address 127.0.0.1" in result.output
