"""The front of several Streamlit workers: HAProxy (Debian's package), configured and run by `fairval serve`.

A browser sticks to one worker by a `fairval_worker` cookie HAProxy inserts, because a Streamlit session
lives in that worker's memory. Websockets, keep-alive, slow clients, queueing under a burst, health
checks and moving a browser off a worker that is gone are HAProxy's work, not ours: a launch where
hundreds of browsers arrive together is what it is built for. The rater resumes on another worker
because the database, not the session, holds the slot.

`config()` writes the one configuration fairval uses; deploy/haproxy.cfg is the same text for several
hosts, and a test keeps the two in step.
"""
from __future__ import annotations

import html
import shutil
from collections.abc import Sequence
from pathlib import Path

from fairval.errors import FrontMissing

COOKIE = "fairval_worker"
CANDIDATES = ("haproxy", "/usr/sbin/haproxy")

# New Streamlit sessions (a websocket each) one browser address may open (issue 58): made-up participant IDs
# on an open link would otherwise hold the line's places. A classroom of 30 behind one NAT address opens 30
# at once and each may reconnect (60 in 10 s); Prolific's participants come from distinct addresses. Over
# either bound the address gets a 429 page until its rate falls; change them with FAIRVAL_SESSIONS_PER_10S
# and FAIRVAL_SESSIONS_PER_3MIN (`fairval serve --workers`), or in deploy/haproxy.cfg.
SESSIONS_PER_10S = 60
SESSIONS_PER_3MIN = 150          # 3 min: how long a place let in is held before consent (admission.py)
# Whose sessions are counted together: the TCP source (never X-Forwarded-For, which a client writes), IPv4 as
# it is, IPv6 by its /64 (HAProxy's ipmask converter): a home or a phone is given a /64 and can open each
# session from another address of it, which the full address would count as a new client every time.
NETWORK = "src,ipmask(32,64)"
# The page HAProxy answers with over a bound (HTTP 429). HAProxy does not know the study's language, so the page
# says it in every language fairval ships, each marked with its lang (and dir), the browser's own first
# (Accept-Language through HAProxy's `language` converter, then a CSS order). The words come from the rater's
# catalogues, ui/locale (read here as data: serving imports none of the rater's views), where translators
# correct them; tests/ui/test_i18n.py checks every catalogue has them.
WAIT_TITLE = "Please wait a minute"
WAIT_TEXT = ("This study was opened very many times from your network just now. Please wait a minute, then reload "
             "this page. Nothing you answered is lost.")
LOCALE = Path(__file__).resolve().parents[2] / "ui" / "locale"


def wait_texts() -> dict[str, tuple[str, str]]:
    """BCP 47 tag -> (title, text) of the wait page: English, then each shipped catalogue's translation."""
    from babel.messages.pofile import read_po

    out = {"en": (WAIT_TITLE, WAIT_TEXT)}
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/fairval.po")):
        with po.open("rb") as f:
            table = {m.id: m.string for m in read_po(f) if isinstance(m.string, str) and m.string and not m.fuzzy}
        out[po.parts[-3].replace("_", "-")] = (table.get(WAIT_TITLE, WAIT_TITLE), table.get(WAIT_TEXT, WAIT_TEXT))
    return out


def _quoted(text: str) -> str:
    """Text for inside a double-quoted HAProxy log-format argument (lf-string, set-var-fmt): HTML-escaped,
    and the characters HAProxy reads there (\\, ", $ and log-format's %) escaped."""
    return (html.escape(text, quote=False).replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
            .replace("%", "%%"))


def _wait_rules() -> str:
    """HAProxy's lines that answer a network over the bound: its language, the page's title in it, the page."""
    from babel import Locale

    texts = wait_texts()
    primaries = list(dict.fromkeys(tag.split("-")[0] for tag in texts))
    first = "".join(f"html[lang={p}] section[lang|={p}]{{order:0}}" for p in primaries)
    sections = "".join(
        f"<section lang={tag}"
        + (" dir=rtl" if Locale.parse(tag, sep="-").character_order == "right-to-left" else "")
        + f"><h1>{_quoted(title)}</h1><p>{_quoted(text)}</p></section>" for tag, (title, text) in texts.items())
    page = ("<!doctype html><html lang=%[var(txn.wait_lang)]><head><meta charset=utf-8>"
            "<meta name=viewport content='width=device-width'><title>%[var(txn.wait_title)]</title><style>"
            "body{font-family:sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;display:flex;"
            "flex-direction:column}section{order:1}h1{font-size:1.3rem}" + first + "</style></head><body>"
            + sections + "</body></html>")
    lines = ["http-request set-var(txn.wait_lang) str(en) if too_many",
             f"http-request set-var(txn.wait_lang) req.fhdr(accept-language),language({';'.join(primaries)},en) "
             "if too_many"]
    lines += [f"http-request set-var-fmt(txn.wait_title) \"{_quoted(texts[tag][0])}\" if too_many "
              f"{{ var(txn.wait_lang) -m str {tag.split('-')[0]} }}" for tag in texts]
    lines.append('http-request return status 429 content-type "text/html; charset=utf-8" hdr Retry-After 60 '
                 f'hdr Content-Language %[var(txn.wait_lang)] lf-string "{page}" if too_many')
    return "\n    ".join(lines)


def connection_limit() -> int:
    """As many connections as this process may open files for (HAProxy needs two per connection)."""
    import resource
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = hard if hard != resource.RLIM_INFINITY else 65536
    return max(256, min(10000, (limit - 200) // 2))


def haproxy_binary() -> str:
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise FrontMissing("`fairval serve --workers N` runs HAProxy in front of the workers, and it is not "
                       "installed: `apt-get install haproxy` (Debian; `make haproxy` and `make test` do it)")


# deploy/haproxy.cfg: the same configuration in front of two hosts, each running two plain workers
# (`fairval serve --port 8601` and `--port 8602`, one Streamlit each, one FAIRVAL_COOKIE_SECRET for
# all); edit the addresses, keep the rest. Between HAProxy and the hosts the traffic is HTTPS, the
# hosts' certificates checked (each worker speaks TLS itself: STREAMLIT_SERVER_SSL_CERT_FILE and
# _KEY_FILE), and each worker believes X-Forwarded-For from HAProxy's address alone
# (FAIRVAL_TRUSTED_PROXIES=10.0.0.10): otherwise every browser would be HAProxy's address, and one
# guesser would hold back every researcher's sign-in.
DEPLOY_BIND = "0.0.0.0:80"
DEPLOY_SERVERS = [("h1w0", "10.0.0.11:8601"), ("h1w1", "10.0.0.11:8602"),
                  ("h2w0", "10.0.0.12:8601"), ("h2w1", "10.0.0.12:8602")]
HOSTS_TLS = "ssl verify required ca-file @system-ca"     # the hosts' certificates, checked against the system's CAs


def deploy_config() -> str:
    """The text of deploy/haproxy.cfg."""
    return ("# fairval on several hosts: HAProxy in front of every host's Streamlit workers, over HTTPS.\n"
            "# Each worker: STREAMLIT_SERVER_SSL_CERT_FILE/_KEY_FILE (its host's certificate, which a CA in\n"
            "# this machine's store signed) and FAIRVAL_TRUSTED_PROXIES=<this HAProxy's address>.\n"
            "# Generated from annotate/serving/front.py (a test keeps them equal); see docs/deployment.md.\n"
            + config(DEPLOY_BIND, DEPLOY_SERVERS, server_options=HOSTS_TLS))


def config(bind: str, servers: Sequence[tuple[str, str]], *, maxconn: int = 10000,
           request_timeout: str = "30s", tls_pem: str | None = None, redirect_bind: str | None = None,
           front_secret: str | None = None, server_options: str = "", sessions_per_10s: int = SESSIONS_PER_10S,
           sessions_per_3min: int = SESSIONS_PER_3MIN) -> str:
    """HAProxy's configuration: listen on `bind` (host:port), balance over `servers` (name, host:port),
    at most `maxconn` connections at once (each takes two file descriptors), a request's headers within
    `request_timeout` of its connection. With `tls_pem` (certificate and key in one file) the front speaks
    HTTPS on `bind`, says so to the app (X-Forwarded-Proto, so the sign-in cookie is Secure) and to the
    browser (HSTS), and the worker cookie is Secure; `redirect_bind` then answers plain HTTP with a redirect
    to HTTPS. `front_secret` goes to the workers with every request (X-Fairval-Front): it tells them the
    X-Forwarded-For beside it is this front's, and only then do they count wrong passwords by it.
    `sessions_per_10s`, `sessions_per_3min`: new Streamlit sessions (websockets) one address may open."""
    binds = f"bind {bind}" + (f" ssl crt {tls_pem}" if tls_pem else "")
    if tls_pem:
        if redirect_bind:
            # to the HTTPS port itself: the browser's Host names the plain port when it is not 80
            port = bind.rsplit(":", 1)[-1]
            target = ("https://%[req.hdr(host),field(1,:)]%[capture.req.uri]" if port == "443"
                      else f"https://%[req.hdr(host),field(1,:)]:{port}%[capture.req.uri]")
            binds += (f"\n    bind {redirect_bind}\n    http-request redirect location {target} code 301 "
                      "unless { ssl_fc }")
        binds += ("\n    http-response set-header Strict-Transport-Security \"max-age=31536000\" if { ssl_fc }"
                  # every cookie of an HTTPS answer Secure: Streamlit sets its sign-in cookies (_streamlit_user,
                  # _streamlit_user_tokens) and its XSRF cookie without it behind a front, and has no setting for
                  # it; the cookie's other attributes (HttpOnly, SameSite, Path, Max-Age) stay as they were
                  "\n    http-response replace-header Set-Cookie '(?i)^((?:(?!;\\s*secure\\s*(?:;|$)).)*)$' "
                  "'\\1; Secure' if { ssl_fc }")
    front = (f"\n    http-request set-header X-Fairval-Front {front_secret}" if front_secret
             else "\n    http-request del-header X-Fairval-Front")
    lines = [_HEAD.format(binds=binds, maxconn=maxconn, request_timeout=request_timeout, front=front,
                          secure=" secure" if tls_pem else "", network=NETWORK, per_10s=sessions_per_10s,
                          per_3min=sessions_per_3min, wait=_wait_rules()).rstrip()]
    lines += [f"    server {name} {address} cookie {name}" + (f" {server_options}" if server_options else "")
              for name, address in servers]
    return "\n".join(lines) + "\n"


# Why each timeout: connect is local or on the LAN; a queued request waits for a worker rather than
# failing (a burst of browsers is queued, never answered 503); `tunnel` is a websocket's idle lifetime
# (Streamlit pings well inside it); `http-request` ends slow or stalled clients.
# The health check is a TCP connect, not an HTTP request: a worker busy with a launch's burst can take
# longer than any sensible HTTP check to answer while being perfectly alive, and marking it down would
# break every page it is sending (a launch measured it: 20 s checks timed out, both workers were marked
# down, every browser broke). A killed worker refuses the connect at once: two misses mark it down,
# and its browsers are sent to another worker (redispatch) with that worker's cookie.
# http-ignore-probes: Chromium opens connections ahead of its requests, and a browser starved of CPU at
# a launch sends nothing on them for longer than `timeout http-request`. HAProxy then answers 408, the
# browser reads that as the answer to the script it sends at that moment, and the page stays blank
# (measured: 50 browsers, 2 workers, 408 on index.js and four more chunks). With the option an empty
# connection is closed silently, and the browser sends its request again on a new one (HAProxy's
# manual, "timeout http-request" and the "cR" termination state).
_HEAD = """\
global
    maxconn {maxconn}
    hard-stop-after 10s
    log stderr format short daemon

defaults
    mode http
    log global
    # only what went wrong (a 5xx, a refused or broken connection), one line each, on HAProxy's stderr
    # (fairval's own under `fairval serve`)
    option httplog
    option dontlog-normal
    option dontlognull
    option http-ignore-probes
    timeout connect 5s
    timeout queue 120s
    timeout client 120s
    timeout server 120s
    timeout tunnel 2h
    timeout client-fin 10s
    timeout http-request {request_timeout}
    timeout http-keep-alive 15s
    timeout check 5s
    retries 3
    option redispatch 1

frontend fairval
    {binds}
    # the browser's address, for the sign-in back-off per client: only the front's own. A client's
    # X-Forwarded-For (or -Proto) would otherwise reach the app beside it, and the app would believe it.
    http-request del-header X-Forwarded-For
    http-request del-header X-Forwarded-Proto
    http-request del-header Forwarded{front}
    http-request set-header X-Forwarded-Proto https if {{ ssl_fc }}
    # new sessions (websockets) per browser network (issue 58, SESSIONS_PER_10S in annotate/serving/front.py):
    # an IPv4 address, or an IPv6 address's /64, which one home or phone holds whole and may take any address of
    # (an IPv4 client of a dual-stack bind, ::ffff:a.b.c.d, is masked as the IPv4 address it is)
    acl new_session path_end /_stcore/stream
    acl new_session_ws hdr(upgrade) -m str -i websocket
    http-request track-sc0 {network} table sessions_10s if new_session new_session_ws
    http-request track-sc1 {network} table sessions_3min if new_session new_session_ws
    acl too_many {network},table_http_req_rate(sessions_10s) gt {per_10s}
    acl too_many {network},table_http_req_rate(sessions_3min) gt {per_3min}
    # over either: a page in every shipped language, the browser's first (WAIT_TITLE above)
    {wait}
    option forwardfor
    default_backend workers

backend sessions_10s
    stick-table type ipv6 size 100k expire 1m store http_req_rate(10s)

backend sessions_3min
    stick-table type ipv6 size 100k expire 10m store http_req_rate(3m)

backend workers
    # a participant holds one websocket for the whole study: the worker holding fewest gets the next
    # (HAProxy's manual advises leastconn for long sessions); the cookie keeps each browser where it is
    balance leastconn
    cookie fairval_worker insert indirect nocache httponly{secure} attr "SameSite=Lax"
    # which worker answered: for operators' logs and the tests, nothing a client must read
    http-response set-header X-Fairval-Worker %[srv_name]
    default-server check inter 2s fall 2 rise 1 maxconn 2000
"""
