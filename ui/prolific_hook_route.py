"""POST /fairval/prolific-hook: where Prolific pushes submission status changes (annotate/crowd/hooks.py)."""
from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from fairval.annotate.crowd.hooks import receive
from fairval.store import open_db
from fairval.store.db import default_db_path


async def prolific_hook(request: Request) -> PlainTextResponse:
    body = await request.body()

    def work() -> tuple[int, str]:
        db = open_db(default_db_path())
        try:
            return receive(db, dict(request.headers), body)
        finally:
            db.close()
    status, said = await run_in_threadpool(work)
    return PlainTextResponse(said, status_code=status)


ROUTES = [Route("/fairval/prolific-hook", prolific_hook, methods=["POST"])]
