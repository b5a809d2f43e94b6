"""Which pages may speak for fairval: a browser's Origin that is fairval's own address.

Streamlit takes a websocket from any Origin whose host is 127.0.0.1, localhost or this machine's address,
whatever the port, and asks the internet for its external address to decide about any other. A page on
another port of the same host is the same *site* to a browser, so the researcher's SameSite=Strict cookie
goes with its websocket: it could drive a signed-in researcher's session. fairval's own Origin is the
address the browser asked (its Host: scheme and port included, so another port is another origin), or, when
a lab names its public address(es) in FAIRVAL_PUBLIC_URL, exactly those."""
from __future__ import annotations

import os
from urllib.parse import urlsplit


def refuse_unreadable(value: str) -> None:
    """`fairval serve` checks FAIRVAL_PUBLIC_URL before it starts: a typo would otherwise leave the lab's
    address refused (or fall back to the browser's Host) without a word."""
    from fairval.errors import ServeRefused
    for url in value.split():
        if not _origin(url):
            raise ServeRefused(f"FAIRVAL_PUBLIC_URL: {url!r} is not an address such as https://fairval.lab.example "
                               "(scheme http or https, a host, an optional port)")


def configured() -> list[str]:
    """FAIRVAL_PUBLIC_URL: the origins (scheme://host[:port]) browsers reach fairval at, space-separated."""
    return [_origin(u) for u in os.environ.get("FAIRVAL_PUBLIC_URL", "").split() if _origin(u)]


def _origin(url: str) -> str:
    parts = urlsplit(url.strip().lower())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return ""
    default = {"http": 80, "https": 443}[parts.scheme]
    try:
        port = parts.port or default
    except ValueError:
        return ""
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}" + ("" if port == default else f":{port}")


def is_own(origin: str | None, host: str | None, public: list[str] | None = None) -> bool:
    """Whether a request's Origin is fairval's own; no Origin at all (not a browser's page) is left to the
    other checks, as Streamlit and the WebSocket protocol do."""
    if origin is None:
        return True
    said = _origin(origin)
    if not said:
        return False                  # "null" (a sandboxed frame, a file://), or nothing like an origin
    public = configured() if public is None else public
    if public:
        return said in public
    if not host:
        return False
    scheme = said.split("://", 1)[0]
    return said == _origin(f"{scheme}://{host}")
