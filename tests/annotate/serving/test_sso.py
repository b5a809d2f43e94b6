"""Single sign-on's settings and roles, without a browser: what the environment must say (each gap refused in one
line before `fairval serve` starts), what Streamlit's st.login is handed, and which role a provider's claims
give: the role claim (a string or a list), an allow-list by verified email or subject, the highest of them,
and nobody else. The browser's own walk through a real provider: tests/e2e/test_sso_browser.py."""
import hashlib
import hmac

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.serving import sso
from fairval.errors import ServeRefused

FULL = {"FAIRVAL_OIDC_METADATA_URL": "https://id.lab.example/.well-known/openid-configuration",
        "FAIRVAL_OIDC_CLIENT_ID": "fairval", "FAIRVAL_OIDC_CLIENT_SECRET": "shh",
        "FAIRVAL_PUBLIC_URL": "https://fairval.lab.example/ http://other.example", "FAIRVAL_OIDC_ROLE_CLAIM": "roles",
        "FAIRVAL_OIDC_OWNERS": "Boss@Lab.example", "FAIRVAL_OIDC_EDITORS": "sub-7, ed@lab.example\nkim@lab.example"}


def test_no_provider_named_is_no_single_sign_on():
    assert sso.settings({}) is None
    assert sso.settings({"FAIRVAL_PUBLIC_URL": "https://x.example"}) is None


@pytest.mark.parametrize("drop, said", [
    ("FAIRVAL_OIDC_CLIENT_ID", "needs FAIRVAL_OIDC_CLIENT_ID"),
    ("FAIRVAL_OIDC_CLIENT_SECRET", "needs FAIRVAL_OIDC_CLIENT_SECRET (or FAIRVAL_OIDC_CLIENT_SECRET_FILE)"),
    ("FAIRVAL_PUBLIC_URL", "needs FAIRVAL_PUBLIC_URL"),
    ("FAIRVAL_OIDC_METADATA_URL", "FAIRVAL_OIDC_CLIENT_ID is set but FAIRVAL_OIDC_METADATA_URL is not")])
def test_each_gap_is_refused_in_one_line_naming_it(drop, said):
    env = {k: v for k, v in FULL.items() if k != drop}
    with pytest.raises(ServeRefused) as refused:
        sso.settings(env)
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_a_provider_that_gives_nobody_a_role_is_refused():
    env = {k: v for k, v in FULL.items() if k not in ("FAIRVAL_OIDC_ROLE_CLAIM", "FAIRVAL_OIDC_OWNERS",
                                                      "FAIRVAL_OIDC_EDITORS")}
    with pytest.raises(ServeRefused, match="gives nobody a role"):
        sso.settings(env)


def test_a_provider_over_plain_http_elsewhere_is_refused():
    with pytest.raises(ServeRefused, match="over https"):
        sso.settings({**FULL, "FAIRVAL_OIDC_METADATA_URL": "http://id.lab.example/.well-known/openid-configuration"})
    assert sso.settings({**FULL, "FAIRVAL_OIDC_METADATA_URL": "http://127.0.0.1:9000/.well-known/x"}) is not None


def test_the_client_secret_from_a_file(tmp_path):
    (tmp_path / "secret").write_text("from-a-file\n")
    env = {k: v for k, v in FULL.items() if k != "FAIRVAL_OIDC_CLIENT_SECRET"}
    assert sso.settings({**env, "FAIRVAL_OIDC_CLIENT_SECRET_FILE": str(tmp_path / "secret")}).client_secret == "from-a-file"
    with pytest.raises(ServeRefused, match="cannot read FAIRVAL_OIDC_CLIENT_SECRET_FILE"):
        sso.settings({**env, "FAIRVAL_OIDC_CLIENT_SECRET_FILE": str(tmp_path / "missing")})


def test_what_streamlit_is_handed():
    """Streamlit's [auth] section: the callback on the first public address, a cookie secret every worker derives
    alike from the server's secret (HMAC-SHA256, computed here independently), the prompt only when asked."""
    given = sso.settings(FULL)
    auth = sso.streamlit_secrets(given, "server secret")["auth"]
    expected = hmac.new(b"server secret", b"fairval streamlit identity cookie", hashlib.sha256).hexdigest()
    assert auth == {"redirect_uri": "https://fairval.lab.example/oauth2callback", "cookie_secret": expected,
                    "client_id": "fairval", "client_secret": "shh",
                    "server_metadata_url": "https://id.lab.example/.well-known/openid-configuration"}
    prompted = sso.streamlit_secrets(sso.settings({**FULL, "FAIRVAL_OIDC_PROMPT": "login"}), "server secret")
    assert prompted["auth"]["client_kwargs"] == {"prompt": "login"}


@pytest.mark.parametrize("claims, role", [
    ({"sub": "a", "roles": "viewer"}, "viewer"),
    ({"sub": "a", "roles": " Editor "}, "editor"),
    ({"sub": "a", "roles": ["viewer", "owner", "admin"]}, "owner"),          # the highest role named
    ({"sub": "a", "roles": ["admin", 3, None]}, None),                       # nothing that names a role
    ({"sub": "a", "roles": "viewer", "email": "boss@lab.example"}, "owner"),  # the list gives more than the claim
    ({"sub": "a", "email": "BOSS@lab.example", "email_verified": True}, "owner"),
    ({"sub": "a", "email": "boss@lab.example", "email_verified": False}, None),   # an unverified email is no one
    ({"sub": "sub-7"}, "editor"),                                            # listed by subject
    ({"sub": "a", "email": "kim@lab.example"}, "editor"),
    ({"sub": "a", "email": "someone@lab.example"}, None),
    ({}, None)])
def test_the_role_the_claims_give(claims, role):
    assert sso.role_for(claims, sso.settings(FULL)) == role


def test_lists_alone_need_no_claim():
    env = {k: v for k, v in FULL.items() if k != "FAIRVAL_OIDC_ROLE_CLAIM"}
    assert sso.role_for({"sub": "x", "roles": "owner", "email": "ed@lab.example"}, sso.settings(env)) == "editor"


def test_expiry_and_who():
    assert sso.expires({"exp": 1_900_000_000}) == 1_900_000_000.0
    assert sso.expires({"exp": "1900000000"}) is None and sso.expires({"exp": True}) is None and sso.expires({}) is None
    assert sso.who({"email": "a@b.example", "name": "A"}) == "a@b.example"
    assert sso.who({"name": "Ada\nLovelace", "sub": "x"}) == "Ada Lovelace"
    # one ID token's sign-in: another token of the same researcher (a new iat) is another sign-in
    first = {"iss": "i", "sub": "s", "iat": 1, "exp": 2, "nonce": "n"}
    assert sso.revocation_key(first) != sso.revocation_key({**first, "iat": 3})


def test_serve_refuses_incomplete_settings_before_it_starts(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRVAL_OIDC_METADATA_URL", "https://id.lab.example/.well-known/openid-configuration")
    monkeypatch.delenv("FAIRVAL_OIDC_CLIENT_ID", raising=False)
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "d.db"), "serve", "--address", "127.0.0.1"])
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert "single sign-on needs FAIRVAL_OIDC_CLIENT_ID" in result.output


@pytest.mark.parametrize("name, shown", [("ada@lab.example", "`ada@lab.example`"),
                                         ("![x](http://e.example/) **b**", "`![x](http://e.example/) **b**`"),
                                         ("a`b", "`` a`b ``"), ("``x```", "```` ``x``` ````")])
def test_a_name_the_provider_gave_is_shown_in_a_code_span(name, shown):
    from fairval.ui.sso import plain
    assert plain(name) == shown
