"""Headers every response of `fairval serve` carries, so no other site can draw its pages inside a frame
(Manage's buttons could otherwise be clicked through a disguise): Content-Security-Policy's frame-ancestors
(only this server's own pages, or the origins a lab names in FAIRVAL_FRAME_ANCESTORS) and X-Frame-Options for
older browsers; and no guessing of content types. Under HTTPS (this server's own, or the front's, which says
so in X-Forwarded-Proto) Streamlit's XSRF cookie is made Secure too: Streamlit marks it so only when it holds
the certificate itself."""
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

        secure = scope.get("scheme") == "https" or any(
            k.lower() == b"x-forwarded-proto" and v.strip().lower() == b"https" for k, v in scope.get("headers", []))

        async def with_headers(message):
            if message["type"] == "http.response.start":
                headers = [_secure_cookie(k, v) if secure else (k, v) for k, v in message.get("headers", [])]
                present = {k.lower() for k, _ in headers}
                message = {**message, "headers": headers + [(k, v) for k, v in self.headers if k not in present]}
            await send(message)
        await self.app(scope, receive, with_headers)


def _secure_cookie(name: bytes, value: bytes) -> tuple[bytes, bytes]:
    if name.lower() == b"set-cookie" and value.startswith(b"_streamlit_xsrf=") and b"secure" not in value.lower():
        return name, value + b"; Secure"
    return name, value
