"""The answer card's files get a validator and a freshness (server/component_assets.py): an ETag that is the file's
content, 304 for a browser that names it, the script revalidated each time and the CSS fresh for 5 minutes,
gzip compressed once per file and process. What the route does not serve, and a component's HTML page, pass as
they are. The route stands in for Streamlit's /_stcore/bidi-components/ (streamlit 1.67,
web/server/starlette/starlette_routes.py): the file's bytes, its content type, `Cache-Control: public` (HTML:
`no-cache`), no validator, 404 for a file it does not have."""
import gzip
import hashlib
import re

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.testclient import TestClient

from fairval.server.component_assets import ComponentAssets

BASE = "/_stcore/bidi-components/fairval.fairval_answer_card"
FILES = {"answer_card.js": ("function card() { return 'card'; }\n" * 300).encode(),
         "answer_card.css": (".fv-card { display: grid; gap: 0.5rem; }\n" * 100).encode(),
         "index.html": b"<div>" + b"x" * 2000 + b"</div>"}
KINDS = {"js": "text/javascript", "css": "text/css", "html": "text/html"}
ASKED: list[dict] = []


def route(request):
    ASKED.append(dict(request.headers))
    name = request.path_params["path"].split("/", 1)[-1]
    if name not in FILES:
        return PlainTextResponse("not found", 404)
    response = Response(FILES[name], media_type=KINDS[name.rsplit(".", 1)[-1]])
    response.headers["Cache-Control"] = "no-cache" if name.endswith(".html") else "public"
    return response


def client() -> TestClient:
    app = Starlette(routes=[Route("/_stcore/bidi-components/{path:path}", route)],
                    middleware=[Middleware(ComponentAssets)])
    return TestClient(app)


def etag_of(data: bytes) -> str:
    return 'W/"' + hashlib.sha256(data).hexdigest()[:32] + '"'


def test_a_file_gets_its_contents_etag_a_freshness_and_gzip_and_a_browser_naming_the_etag_gets_304():
    c = client()
    for name, fresh in (("answer_card.js", "public, no-cache"), ("answer_card.css", "public, max-age=300")):
        r = c.get(f"{BASE}/{name}", headers={"Accept-Encoding": "gzip, deflate, br"})
        assert r.status_code == 200 and r.content == FILES[name]              # httpx takes the gzip off
        assert r.headers["etag"] == etag_of(FILES[name]) and r.headers["cache-control"] == fresh
        assert r.headers["content-encoding"] == "gzip" and r.headers["vary"] == "Accept-Encoding"
        assert int(r.headers["content-length"]) == len(gzip.compress(FILES[name], 6, mtime=0)) < len(FILES[name]) / 4
        again = c.get(f"{BASE}/{name}", headers={"If-None-Match": r.headers["etag"], "Accept-Encoding": "gzip"})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == r.headers["etag"]
        assert again.headers["cache-control"] == fresh
    # the route was asked for the plain bytes, unconditionally (it has no validator of its own)
    assert not any("accept-encoding" in h or "if-none-match" in h for h in ASKED)


def test_a_changed_file_is_sent_whole_to_a_browser_holding_the_old_one():
    c = client()
    old = c.get(f"{BASE}/answer_card.js").headers["etag"]
    FILES["answer_card.js"] += b"// a new fairval\n"
    try:
        r = c.get(f"{BASE}/answer_card.js", headers={"If-None-Match": old, "Accept-Encoding": "identity"})
        assert r.status_code == 200 and r.content == FILES["answer_card.js"] and r.headers["etag"] != old
        assert "content-encoding" not in r.headers                # a browser that did not ask for gzip
        # several tags, strong or weak, and `*`, as RFC 9110 lets a browser send them
        assert c.get(f"{BASE}/answer_card.js", headers={"If-None-Match": f'{old}, {r.headers["etag"][2:]}'}
                     ).status_code == 304
        assert c.get(f"{BASE}/answer_card.js", headers={"If-None-Match": "*"}).status_code == 304
    finally:
        FILES["answer_card.js"] = FILES["answer_card.js"].removesuffix(b"// a new fairval\n")


def test_what_the_route_does_not_serve_and_the_components_html_pass_as_they_are():
    c = client()
    missing = c.get(f"{BASE}/missing.js", headers={"Accept-Encoding": "gzip"})
    assert missing.status_code == 404 and "etag" not in missing.headers
    page = c.get(f"{BASE}/index.html", headers={"Accept-Encoding": "gzip"})
    assert page.headers["cache-control"] == "no-cache" and "etag" not in page.headers
    assert page.content == FILES["index.html"]
    other = c.get("/_stcore/bidi-components/fairval.fairval_answer_card/answer_card.js.map")
    assert other.status_code == 404 and not re.search("etag", " ".join(other.headers))
