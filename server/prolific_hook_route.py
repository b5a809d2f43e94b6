"""POST /fairval/prolific-hook: where Prolific pushes submission status changes (annotate/crowd/hooks.py).

Anyone can reach it, signed in or not, so its body is bounded before it is read: a declared length past
MOST_BYTES is refused at once, and a body sent without one (chunked) is read only up to it."""
from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from fairval.annotate.crowd.hooks import receive
from fairval.store import open_db
from fairval.store.db import default_db_path

MOST_BYTES = 64 * 1024          # a submission event is a few hundred bytes


async def bounded_body(request: Request) -> bytes | None:
    """The body, or None when it is (or says it is) longer than MOST_BYTES."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MOST_BYTES):
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MOST_BYTES:
            return None
    return bytes(body)


async def prolific_hook(request: Request) -> PlainTextResponse:
    body = await bounded_body(request)
    if body is None:
        return PlainTextResponse(f"a Prolific event is at most {MOST_BYTES} bytes", status_code=413,
                                 headers={"Connection": "close"})

    def work() -> tuple[int, str]:
        db = open_db(default_db_path())
        try:
            return receive(db, dict(request.headers), body)
        finally:
            db.close()
    status, said = await run_in_threadpool(work)
    return PlainTextResponse(said, status_code=status)


ROUTES = [Route("/fairval/prolific-hook", prolific_hook, methods=["POST"])]
