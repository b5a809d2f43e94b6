"""The answer card's files (the components v2 asset directory ui/card/, served by Streamlit's route
/_stcore/bidi-components/<component>/<file>) with a validator and a freshness Streamlit does not give them.

Streamlit sends them as `Cache-Control: public`, with no max-age, ETag or Last-Modified: a browser may keep no
copy, so every mount of the card fetched its CSS again (each mount links it; Chromium, 5 items: 5 fetches)
and a reload fetched both files again. Their URL carries no version (it is the file's path in the directory),
so a long max-age could run an old script against a new fairval after an upgrade. Here:
- ETag: a hash of the file's bytes (weak: the gzip and the plain bytes are one file); a request whose
  If-None-Match names it is answered 304, no body.
- The script: `no-cache`, revalidated each time. A page imports it once, so that is one 304 per page load,
  and a reload never runs an old script after an upgrade.
- The CSS: `max-age=300`. Each mount links it anew, and five minutes of freshness keeps the mounts of a
  study's items from asking again. After an upgrade an old CSS lasts five minutes at most and only looks
  older: the script waits for the file's load, not for any rule in it (ui/card/answer_card.js, whenStyled).
- gzip: Streamlit gzips them on every response; here the route is asked for the plain bytes, which are
  hashed and compressed once per file and process, as server/compression.py does for /static/.
A file the route does not serve (404, 400), and the component's HTML page (Streamlit's `no-cache`), pass as
they are."""
from __future__ import annotations

import gzip
import hashlib
import threading

from fairval.server.compression import COMPRESSIBLE, LEVEL, MINIMUM

PREFIX = "/_stcore/bidi-components/"
FRESHNESS = {".js": b"public, no-cache", ".css": b"public, max-age=300"}
MOST_KEPT = 64                  # compressed files kept: a component ships a handful
DROPPED = (b"accept-encoding", b"if-none-match", b"if-modified-since", b"range")   # the route sees a plain GET


class ComponentAssets:
    def __init__(self, app, prefix: str = PREFIX):
        self.app, self.prefix = app, prefix
        self.packed: dict[bytes, bytes] = {}          # ETag -> the file's bytes gzipped
        self.lock = threading.Lock()

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "") if scope["type"] == "http" else ""
        suffix = "." + path.rsplit(".", 1)[-1] if "." in path.rsplit("/", 1)[-1] else ""
        if scope.get("method") != "GET" or not path.startswith(self.prefix) or suffix not in FRESHNESS:
            return await self.app(scope, receive, send)
        asked = {k.lower(): v for k, v in scope.get("headers", [])}
        start: dict = {}
        body: list[bytes] = []

        async def capture(message):
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                body.append(message.get("body", b""))
        inner = [(k, v) for k, v in scope.get("headers", []) if k.lower() not in DROPPED]
        await self.app({**scope, "headers": inner}, receive, capture)
        status, headers, data = start.get("status", 500), list(start.get("headers", [])), b"".join(body)
        cache = next((v for k, v in headers if k.lower() == b"cache-control"), b"")
        if status != 200 or cache != b"public":          # not a file the route served, or its HTML page
            return await _send(send, status, headers, data)
        tag = b'W/"' + hashlib.sha256(data).hexdigest()[:32].encode() + b'"'
        headers = [(k, v) for k, v in headers
                   if k.lower() not in (b"cache-control", b"content-length", b"content-encoding", b"etag", b"vary")]
        headers += [(b"cache-control", FRESHNESS[suffix]), (b"etag", tag), (b"vary", b"Accept-Encoding")]
        if _names(asked.get(b"if-none-match", b""), tag):
            return await _send(send, 304, [(k, v) for k, v in headers if k.lower() != b"content-type"], b"")
        kind = next((v for k, v in headers if k.lower() == b"content-type"), b"")
        if b"gzip" in asked.get(b"accept-encoding", b"") and len(data) >= MINIMUM and any(c in kind for c in COMPRESSIBLE):
            data = self._packed(tag, data)
            headers.append((b"content-encoding", b"gzip"))
        await _send(send, 200, [*headers, (b"content-length", str(len(data)).encode())], data)

    def _packed(self, tag: bytes, data: bytes) -> bytes:
        packed = self.packed.get(tag)
        if packed is None:
            packed = gzip.compress(data, compresslevel=LEVEL, mtime=0)
            with self.lock:
                if len(self.packed) < MOST_KEPT:
                    self.packed[tag] = packed
        return packed


def _names(if_none_match: bytes, tag: bytes) -> bool:
    """Whether an If-None-Match list names the tag (weak comparison, RFC 9110 13.1.2), or is `*`."""
    wanted = tag.removeprefix(b"W/")
    return any(t.strip() == b"*" or t.strip().removeprefix(b"W/") == wanted for t in if_none_match.split(b","))


async def _send(send, status: int, headers: list, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
