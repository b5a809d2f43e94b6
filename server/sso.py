"""The server's side of single sign-on (annotate/serving/sso.py): Streamlit's `[auth]` secrets made from the
environment for st.App, and where the browser lands after the provider's answer.

Streamlit's /oauth2callback ends every answer (signed in, refused by the provider, back from its sign-out) with a
redirect to the app's first page, which is the rater's. Only researchers come through that route, so its
redirect is pointed at the researcher pages instead (sso.LANDING), which then say who is signed in, or why not."""
from __future__ import annotations

from fairval.annotate.serving import sign_in, sso
from fairval.store import open_db
from fairval.store.db import default_db_path


def streamlit_secrets() -> dict | None:
    """st.App's secrets when the lab names a provider, else None (no st.login, Streamlit's routes idle)."""
    given = sso.settings()
    if given is None:
        return None
    db = open_db(default_db_path())
    try:
        return sso.streamlit_secrets(given, sign_in.server_secret(db))
    finally:
        db.close()


class SsoLanding:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("path") != sso.CALLBACK:
            return await self.app(scope, receive, send)

        async def landing(message):
            if message["type"] == "http.response.start" and message["status"] in (302, 303, 307):
                message = {**message, "headers": [(k, sso.LANDING.encode() if k.lower() == b"location" and v == b"/"
                                                   else v) for k, v in message["headers"]]}
            await send(message)

        await self.app(scope, receive, landing)
