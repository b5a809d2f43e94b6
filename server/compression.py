"""Streamlit's static files, compressed: Streamlit leaves them out of its gzip middleware (its index.js alone
is 480 KiB as sent), which makes a participant's first page 2.8 MiB on the wire. This ASGI middleware gzips
text assets (JavaScript, CSS, HTML, JSON, SVG, source maps) under /static/ once per file and process, keeps
the compressed bytes in memory (a few MiB), and sends them to every browser that accepts gzip, with the
file's own headers (its immutable Cache-Control and ETag, so a returning participant downloads nothing).
Anything else, a conditional request (304) and a browser without gzip pass through untouched.

Only a file that exists is kept: Streamlit answers any made-up /static/ path with its index.html (200), and
keeping those would let anyone fill the server's memory with one entry per path. The cache is bounded too."""
from __future__ import annotations

import gzip
import threading
from pathlib import Path

COMPRESSIBLE = (b"javascript", b"text/", b"json", b"svg", b"xml", b"wasm")
MINIMUM = 1024
LEVEL = 6                       # gzip's default: within 2% of level 9's size at a third of the CPU


MOST_KEPT = 1024                # Streamlit ships a few hundred static files


def streamlit_static() -> Path:
    """Where Streamlit serves /static/… from (its static folder holds a static/ folder of its own)."""
    import streamlit
    return Path(streamlit.__file__).parent / "static"


class StaticCompression:
    def __init__(self, app, prefix: str = "/static/", root: Path | str | None = None):
        self.app, self.prefix = app, prefix
        self.root = Path(root) if root is not None else streamlit_static()
        self.cache: dict[str, tuple[int, list[tuple[bytes, bytes]], bytes]] = {}
        self.lock = threading.Lock()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") != "GET" or not scope.get("path", "").startswith(self.prefix):
            return await self.app(scope, receive, send)
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        if b"gzip" not in headers.get(b"accept-encoding", b"") or b"if-none-match" in headers \
                or b"if-modified-since" in headers or b"range" in headers:
            return await self.app(scope, receive, send)
        key = scope["path"]
        cached = self.cache.get(key)
        if cached is not None:
            return await _send(send, *cached)
        start: dict = {}
        body: list[bytes] = []
        complete = []

        async def capture(message):
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                body.append(message.get("body", b""))
                if not message.get("more_body", False):
                    complete.append(True)
        # A server offering ASGI's pathsend extension would get only the file's path from Starlette's file
        # response, not its bytes: the inner app is asked without it, so the bytes come here to compress.
        extensions = {k: v for k, v in (scope.get("extensions") or {}).items() if k != "http.response.pathsend"}
        await self.app({**scope, "extensions": extensions}, receive, capture)
        if not complete:
            # The browser left mid-file (Starlette's file response stops at its disconnect and returns as if
            # done): what came is part of the file, to be neither kept nor sent, or every later browser would
            # get the truncated script ("Unexpected end of input") and reload its page for good.
            return
        status, raw_headers, data = start.get("status", 500), list(start.get("headers", [])), b"".join(body)
        kind = next((v for k, v in raw_headers if k.lower() == b"content-type"), b"")
        encoded = any(k.lower() == b"content-encoding" for k, _ in raw_headers)
        if status == 200 and not encoded and len(data) >= MINIMUM and any(c in kind for c in COMPRESSIBLE):
            packed = gzip.compress(data, compresslevel=LEVEL, mtime=0)
            raw_headers = [(k, v) for k, v in raw_headers if k.lower() not in (b"content-length", b"vary")]
            raw_headers += [(b"content-encoding", b"gzip"), (b"vary", b"Accept-Encoding"),
                            (b"content-length", str(len(packed)).encode())]
            if self._real_file(key):
                with self.lock:
                    if len(self.cache) < MOST_KEPT:
                        self.cache[key] = (status, raw_headers, packed)
            data = packed
        await _send(send, status, raw_headers, data)


    def _real_file(self, path: str) -> bool:
        relative = path.lstrip("/")
        if ".." in relative.split("/"):
            return False
        return (self.root / relative).is_file()


async def _send(send, status: int, headers: list, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
