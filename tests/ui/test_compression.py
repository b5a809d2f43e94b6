"""Static files go out gzipped, with their own cache headers, once compressed per process; what is not a text
asset, a browser without gzip and a conditional request pass through untouched."""
import gzip

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from fairval.server.compression import StaticCompression

SCRIPT = ("function hello() { return 'hello'; }\n" * 400).encode()
CALLS = []


def asset(request):
    CALLS.append(request.url.path)
    if request.url.path.endswith(".woff2"):
        return Response(b"\x00" * 5000, media_type="font/woff2")
    return Response(SCRIPT, media_type="text/javascript",
                    headers={"Cache-Control": "public, immutable, max-age=31536000", "ETag": '"abc"'})


def client():
    import tempfile
    from pathlib import Path

    root = Path(tempfile.mkdtemp())                      # the files that exist: index.js and font.woff2
    (root / "static").mkdir()
    (root / "static" / "index.js").write_bytes(SCRIPT)
    (root / "static" / "font.woff2").write_bytes(b"\x00" * 5000)
    app = Starlette(routes=[Route("/static/{name}", asset)],
                    middleware=[Middleware(StaticCompression, root=root)])
    return TestClient(app)


def test_a_script_is_sent_gzipped_with_its_cache_headers_and_compressed_once():
    CALLS.clear()
    c = client()
    for _ in range(3):
        r = c.get("/static/index.js", headers={"Accept-Encoding": "gzip"})
        assert r.headers["content-encoding"] == "gzip" and r.headers["vary"] == "Accept-Encoding"
        assert r.headers["cache-control"] == "public, immutable, max-age=31536000" and r.headers["etag"] == '"abc"'
        assert r.content == SCRIPT                                       # httpx takes the gzip off
        assert int(r.headers["content-length"]) == len(gzip.compress(SCRIPT, 6, mtime=0)) < len(SCRIPT) / 10
    assert CALLS == ["/static/index.js"]                                 # compressed once, kept


def test_what_is_not_compressed_passes_through():
    c = client()
    font = c.get("/static/font.woff2", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in font.headers and len(font.content) == 5000
    plain = c.get("/static/index.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == SCRIPT
    conditional = c.get("/static/index.js", headers={"Accept-Encoding": "gzip", "If-None-Match": '"abc"'})
    assert "content-encoding" not in conditional.headers


def test_a_made_up_path_is_compressed_but_never_kept():
    """Streamlit answers any /static/ path with its page (200): kept, each would stay in memory for good."""
    CALLS.clear()
    c = client()
    for _ in range(2):
        for path in ("/static/made-up.js", "/static/index.js"):
            r = c.get(path, headers={"Accept-Encoding": "gzip"})
            assert r.status_code == 200 and r.headers["content-encoding"] == "gzip" and r.content == SCRIPT
    # the made-up path went to the app each time (nothing kept); the real file once
    assert CALLS == ["/static/made-up.js", "/static/index.js", "/static/made-up.js"]


def test_a_file_cut_off_by_a_browser_leaving_is_neither_kept_nor_sent():
    """Under uvicorn (ASGI spec 2.3) Starlette's file response stops at the browser's disconnect and returns
    as if done, its last body message (more_body false) never sent. Kept, that part of a script went to every
    later browser: "Unexpected end of input", Streamlit's chunk failed and the boot watchdog reloaded the page
    (the browser tests' "Execution context destroyed"). Driven here through the ASGI calls themselves."""
    import asyncio
    import tempfile
    from pathlib import Path

    root = Path(tempfile.mkdtemp())
    (root / "static").mkdir()
    (root / "static" / "index.js").write_bytes(SCRIPT)
    left = {"yes": True}
    calls = []

    async def app(scope, receive, send):          # the file in two parts; the second not sent if the browser left
        calls.append(scope["path"])
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/javascript"), (b"content-length", str(len(SCRIPT)).encode())]})
        await send({"type": "http.response.body", "body": SCRIPT[:4000], "more_body": True})
        if (await receive())["type"] == "http.disconnect":
            return
        await send({"type": "http.response.body", "body": SCRIPT[4000:], "more_body": False})

    middleware = StaticCompression(app, root=root)

    def get() -> list[dict]:
        sent: list[dict] = []

        async def receive():
            return {"type": "http.disconnect"} if left["yes"] else {"type": "http.request", "body": b""}

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "method": "GET", "path": "/static/index.js", "asgi": {"spec_version": "2.3"},
                 "headers": [(b"accept-encoding", b"gzip")]}
        asyncio.run(middleware(scope, receive, send))
        return sent

    assert get() == []                                       # the browser that left: nothing is sent to it
    left["yes"] = False
    for _ in range(2):
        sent = get()
        assert gzip.decompress(b"".join(m.get("body", b"") for m in sent[1:])) == SCRIPT     # the whole file
    assert calls == ["/static/index.js"] * 2                 # the cut-off part was not kept; the whole file was


def test_a_server_offering_pathsend_still_gets_the_whole_file_compressed():
    """Starlette's FileResponse answers a server that offers `http.response.pathsend` (granian, hypercorn) with
    the file's path alone: the middleware, which captures body bytes, would have sent the browser nothing."""
    import asyncio
    import tempfile
    from pathlib import Path

    from starlette.responses import FileResponse

    root = Path(tempfile.mkdtemp())
    (root / "static").mkdir()
    (root / "static" / "index.js").write_bytes(SCRIPT)

    async def app(scope, receive, send):
        await FileResponse(root / "static" / "index.js", media_type="text/javascript")(scope, receive, send)

    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/static/index.js", "asgi": {"spec_version": "2.4"},
             "headers": [(b"accept-encoding", b"gzip")], "extensions": {"http.response.pathsend": {}}}
    asyncio.run(StaticCompression(app, root=root)(scope, receive, send))
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert (b"content-encoding", b"gzip") in sent[0]["headers"]
    assert gzip.decompress(sent[1]["body"]) == SCRIPT
