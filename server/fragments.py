"""Streamlit's websocket: a rerun naming a fragment its session does not hold is run as a rerun of the whole
page. Streamlit drops such a request before any script runs (AppSession.request_rerun: "The fragment with id …
does not exist anymore") and sends nothing back for it, so a client that named one (a lying client, or a
browser's click in a fragment a full run just removed) waited for an answer that never came. A whole-page
rerun is what a client naming no fragment gets, which the pages serve already (the answer card records a
Submit from it). The browser's own timer (an auto-rerun) is left as Streamlit has it: nobody waits on it.

Only what a client sends is read (a BackMsg, a few hundred bytes); of what the server sends, the first
messages until the session's id (new_session) is known, then nothing."""
from __future__ import annotations

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg


def _holds(session_id: str, fragment_id: str) -> bool:
    """Whether the session still holds the fragment (Streamlit's own check; a session it does not know: no)."""
    from streamlit.runtime import Runtime

    if not session_id or not Runtime.exists():
        return True                          # nothing to ask yet: Streamlit decides, as before
    session = Runtime.instance().get_app_session(session_id)
    return session is not None and session.has_fragment(fragment_id)


def whole_page_if_unknown(data: bytes, session_id: str) -> bytes:
    """A client's BackMsg as Streamlit is to read it: a rerun naming a fragment the session does not hold,
    asked by a person (not the browser's timer), with the fragment's name taken off; any other as it came."""
    msg = BackMsg()
    try:
        msg.ParseFromString(data)
    except Exception:                        # Streamlit answers a message it cannot read itself
        return data
    if msg.WhichOneof("type") != "rerun_script":
        return data
    rerun = msg.rerun_script
    if not rerun.fragment_id or rerun.is_auto_rerun or _holds(session_id, rerun.fragment_id):
        return data
    rerun.fragment_id = ""
    return msg.SerializeToString()


class FragmentGate:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        session = {"id": ""}

        async def sent(message):
            if not session["id"] and message.get("type") == "websocket.send" and message.get("bytes"):
                forward = ForwardMsg()
                try:
                    forward.ParseFromString(message["bytes"])
                except Exception:
                    forward = None
                if forward is not None and forward.WhichOneof("type") == "new_session":
                    session["id"] = forward.new_session.initialize.session_id
            await send(message)

        async def received():
            message = await receive()
            if message.get("type") == "websocket.receive" and message.get("bytes"):
                message = {**message, "bytes": whole_page_if_unknown(message["bytes"], session["id"])}
            return message

        await self.app(scope, received, sent)
