"""The server's side of researcher sign-in: two routes beside Streamlit's (served through st.App, see
serve.py) that set and clear the sign-in cookie in an HTTP response, so it can be HttpOnly.

GET /fairval/sign-in?grant=G redeems a one-time grant made when the password was checked and sets the
cookie; GET /fairval/sign-out expires it. The page asks them in the background (same origin), so it
is not reloaded; both answer 204.
"""
from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from fairval.annotate.serving import sign_in
from fairval.store import open_db
from fairval.store.db import default_db_path
COOKIE = "fairval_researcher"


def _secure(request: Request) -> bool:
    return request.url.scheme == "https" or request.headers.get("x-forwarded-proto", "").lower() == "https"


async def set_cookie(request: Request) -> Response:
    db = open_db(default_db_path())
    try:
        token = sign_in.redeem(db, request.query_params.get("grant", ""))
    finally:
        db.close()
    if token is None:
        return PlainTextResponse("This sign-in link has been used or has expired; sign in again.", status_code=403)
    response = Response(status_code=204)
    response.set_cookie(COOKIE, token, max_age=sign_in.LIFETIME, path="/", httponly=True, samesite="strict",
                        secure=_secure(request))
    response.headers["Cache-Control"] = "no-store"
    return response


async def clear_cookie(request: Request) -> Response:
    response = Response(status_code=204)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict", secure=_secure(request))
    response.headers["Cache-Control"] = "no-store"
    return response


ROUTES = [Route("/fairval/sign-in", set_cookie, methods=["GET"]),
          Route("/fairval/sign-out", clear_cookie, methods=["GET"])]
