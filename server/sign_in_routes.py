"""The server's side of researcher sign-in: two routes beside Streamlit's (served through st.App, see
serve.py) that set and clear the sign-in cookie in an HTTP response, so it can be HttpOnly.

GET /fairval/sign-in?grant=G redeems a one-time grant made when the password was checked and sets the
cookie, for the browser that holds the grant's binding cookie alone (set by the page that asked); POST
/fairval/sign-out expires it, asked only from the app's own pages (the browser's Origin, or Sec-Fetch-Site,
says so): a link or form on another site cannot sign a researcher out. The page asks them in the background,
so it is not reloaded; both answer 204.
"""
from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from fairval.annotate.serving import sign_in
from fairval.store import open_db
from fairval.store.db import default_db_path

COOKIE = sign_in.COOKIE


def _secure(request: Request) -> bool:
    return request.url.scheme == "https" or request.headers.get("x-forwarded-proto", "").lower() == "https"


async def set_cookie(request: Request) -> Response:
    secure = _secure(request)
    name, binding = sign_in.cookie_names(secure)
    db = open_db(default_db_path())
    try:
        token = sign_in.redeem(db, request.query_params.get("grant", ""), request.cookies.get(binding))
    finally:
        db.close()
    if token is None:
        return PlainTextResponse("This sign-in link has been used or has expired; sign in again.", status_code=403)
    response = Response(status_code=204)
    response.delete_cookie(binding, path="/" if secure else "/fairval/sign-in", samesite="strict", secure=secure)
    response.set_cookie(name, token, max_age=sign_in.LIFETIME, path="/", httponly=True, samesite="strict",
                        secure=secure)
    response.headers["Cache-Control"] = "no-store"
    return response


def same_origin(request: Request) -> bool:
    """Whether the request came from a page of this server: the Origin header names this host (what every
    browser sends with a POST), or, without one, the browser's Sec-Fetch-Site says same-origin."""
    origin = request.headers.get("origin")
    if origin:
        host = request.headers.get("x-forwarded-host") or request.headers.get("host", "")
        return origin.split("://", 1)[-1].rstrip("/") == host
    return request.headers.get("sec-fetch-site") == "same-origin"


async def clear_cookie(request: Request) -> Response:
    if not same_origin(request):
        return PlainTextResponse("Sign out from fairval's own pages.", status_code=403)
    response = Response(status_code=204)
    secure = _secure(request)
    response.delete_cookie(sign_in.cookie_names(secure)[0], path="/", httponly=True, samesite="strict", secure=secure)
    response.headers["Cache-Control"] = "no-store"
    return response


ROUTES = [Route("/fairval/sign-in", set_cookie, methods=["GET"]),
          Route("/fairval/sign-out", clear_cookie, methods=["POST"])]
