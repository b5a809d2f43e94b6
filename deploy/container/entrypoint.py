#!/opt/fairval/bin/python
"""The container's command (Dockerfile): `serve` (the default) runs `fairval serve` with its settings
from the environment; `health` is the image's health check; anything else is a fairval command
(`podman exec fairval fairval-container study list`, or plainly `fairval study list`).

Settings (docs/deployment.md): FAIRVAL_DB (default /data/fairval.db on the volume, or a postgresql://
URL), FAIRVAL_WORKERS (Streamlit processes behind HAProxy, default 2), FAIRVAL_TLS_CERT and
FAIRVAL_TLS_KEY (default /tls/fullchain.pem and /tls/privkey.pem: when both are mounted, HTTPS on 443 and
a redirect on 80; otherwise plain HTTP on 8080), and what `fairval serve` itself reads
(FAIRVAL_RESEARCHER_PASSWORD, FAIRVAL_COOKIE_SECRET, FAIRVAL_PUBLIC_URL, PROLIFIC_TOKEN, ...).
"""
from __future__ import annotations

import os
import ssl
import sys
import urllib.request

CERT, KEY = "/tls/fullchain.pem", "/tls/privkey.pem"
HTTPS_PORT, REDIRECT_PORT, PLAIN_PORT = 443, 80, 8080


def tls(env: dict) -> tuple[str, str] | None:
    """The certificate and key to serve HTTPS with: the files named in the environment (a named file that is
    missing is refused by `fairval serve`, never served as plain HTTP), else the default paths when mounted."""
    cert, key = env.get("FAIRVAL_TLS_CERT"), env.get("FAIRVAL_TLS_KEY")
    if cert or key:
        return cert or CERT, key or KEY
    if os.path.exists(CERT) or os.path.exists(KEY):
        return CERT, KEY
    return None


def serve_command(env: dict, extra: list[str]) -> list[str]:
    command = ["fairval", "serve", "--workers", env.get("FAIRVAL_WORKERS") or "2"]
    pair = tls(env)
    if pair:
        command += ["--tls-cert", pair[0], "--tls-key", pair[1], "--port", str(HTTPS_PORT),
                    "--http-port", str(REDIRECT_PORT)]
    else:
        command += ["--port", str(PLAIN_PORT)]
    return command + extra


def health(env: dict) -> int:
    """0 when the front answers Streamlit's health route (over HTTPS when it serves HTTPS: the certificate
    names the public host, not 127.0.0.1, so it is not checked here)."""
    url = (f"https://127.0.0.1:{HTTPS_PORT}" if tls(env) else f"http://127.0.0.1:{PLAIN_PORT}") + "/_stcore/health"
    try:
        with urllib.request.urlopen(url, timeout=5, context=ssl._create_unverified_context()) as answer:
            return 0 if answer.status == 200 else 1
    except OSError as e:
        print(f"fairval: {url} did not answer: {e}", file=sys.stderr)
        return 1


def main(argv: list[str]) -> int:
    env = dict(os.environ)
    if argv[:1] == ["health"]:
        return health(env)
    command = serve_command(env, argv[1:]) if argv[:1] in ([], ["serve"]) else ["fairval", *argv]
    os.execvp(command[0], command)
    return 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
