"""Streamlit's upload route, opened only for sessions whose page has an uploader (annotate/serving/uploads.py).

PUT /_stcore/upload_file/SESSION/FILE is answered here, before Streamlit, when the session holds no permit,
has sent its share, or declares a body past the cap (or none: a browser's upload always declares one): 403,
413 or 411 with `Connection: close`, the body never read, so a refused upload costs the worker nothing.
Everything else reaches Streamlit's route as before (its XSRF check, its own size limit)."""
from __future__ import annotations

from fairval.annotate.serving import uploads

PREFIX = "/_stcore/upload_file/"


class UploadGate:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "")
        if scope["type"] != "http" or not path.startswith(PREFIX) or scope.get("method") not in ("PUT", "DELETE"):
            return await self.app(scope, receive, send)
        session_id, _, file_id = path[len(PREFIX):].partition("/")
        if scope["method"] == "DELETE":
            uploads.give_back(session_id, file_id)
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers", [])).get(b"content-length", b"")
        if not declared.isdigit():
            return await _refuse(send, 411, "an upload declares its length")
        said = uploads.take(session_id, file_id, int(declared))
        if said is not None:
            return await _refuse(send, 413 if said.startswith("a file") else 403, said)
        status: list[int] = []

        async def watch(message):
            if message["type"] == "http.response.start":
                status.append(message["status"])
            await send(message)
        try:
            await self.app(scope, receive, watch)
        finally:
            if not status or status[0] >= 300:
                uploads.give_back(session_id, file_id)


async def _refuse(send, status: int, said: str) -> None:
    body = said.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
