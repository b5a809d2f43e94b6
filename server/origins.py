"""Streamlit's websocket, for fairval's own pages only (annotate/serving/origins.py): a handshake whose Origin
is another page's is refused here (403), before Streamlit's check, which would let any port of this host in
and look up the machine's external address on the internet for any other origin."""
from __future__ import annotations

from fairval.annotate.serving.origins import configured, is_own


class OriginGate:
    def __init__(self, app):
        self.app, self.public = app, configured()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        headers = {k.lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if not is_own(headers.get(b"origin"), headers.get(b"host"), self.public):
            await receive()                                  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})
            return
        await self.app(scope, receive, send)
