"""Headers every response of `fairval serve` carries, so no other site can draw its pages inside a frame
(Manage's buttons could otherwise be clicked through a disguise): Content-Security-Policy's frame-ancestors
(only this server's own pages, or the origins a lab names in FAIRVAL_FRAME_ANCESTORS) and X-Frame-Options for
older browsers; and no guessing of content types."""
from __future__ import annotations

import os


def frame_ancestors() -> str:
    named = os.environ.get("FAIRVAL_FRAME_ANCESTORS", "").split()
    return " ".join(["'self'", *named])


class SecurityHeaders:
    def __init__(self, app):
        self.app = app
        ancestors = frame_ancestors()
        self.headers = [(b"content-security-policy", f"frame-ancestors {ancestors}".encode()),
                        (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin")]
        if ancestors == "'self'":
            self.headers.append((b"x-frame-options", b"SAMEORIGIN"))

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                message = {**message, "headers": list(message.get("headers", []))
                           + [(k, v) for k, v in self.headers if k not in present]}
            await send(message)
        await self.app(scope, receive, with_headers)
