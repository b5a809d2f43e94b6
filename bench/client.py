"""One browser tab speaking Streamlit's own websocket protocol, as the benches' participants do
(bench/workers.py, bench/load.py, bench/arrivals.py): it sends the page's query string and widget events,
names the fragment a widget was drawn in (so that only it reruns, as a browser does), keeps the timers the
page's fragments set (Streamlit's auto_rerun), and reads the page the server sends back."""
from __future__ import annotations

from collections.abc import Iterable

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState


def address(k: int) -> str:
    """Participant k's own loopback address (Linux routes all of 127/8 to lo): Prolific's participants each
    come from their own address, so `fairval serve`'s per-address bound (annotate/serving/front.py) sees
    what it would see at a launch, not 500 sessions from one machine."""
    return f"127.1.{k // 250 % 250}.{k % 250 + 1}"


def connect(url: str, open_timeout: float = 120, source: str | None = None):
    """The websocket a browser tab opens to the server at `url` (http://host:port), from `source` if given."""
    return websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"],
                              max_size=None, open_timeout=open_timeout, ping_interval=None,
                              **({"local_addr": (source, 0)} if source else {}))


class Tab:
    def __init__(self, ws, query: str):
        self.ws, self.query = ws, query
        self.page_hash = ""              # the page's script, as the server named it: events count on it
        self.fragment_of: dict[str, str] = {}    # element id -> the fragment that drew it
        self.timers: dict[str, float] = {}       # fragment id -> seconds between its timed reruns
        self.whole = True                # the last rerun drew the whole page (not a fragment alone)
        self.received = 0                # bytes of the server's messages on the websocket

    async def rerun(self, widgets: Iterable[WidgetState] = (), fragment: str = "", *, timer: bool = False) -> list:
        """`fragment`: the fragment to rerun (the one a widget was drawn in, or, with `timer`, the one whose
        timer fired); none: the whole page. Returns the elements drawn, after any st.rerun() the run asked for."""
        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_script_hash = self.page_hash
        msg.rerun_script.widget_states.widgets.extend(widgets)
        msg.rerun_script.fragment_id = fragment
        msg.rerun_script.is_auto_rerun = timer
        if not fragment:
            self.timers = {}
        await self.ws.send(msg.SerializeToString())
        elements: list = []
        while True:
            forward = ForwardMsg()
            raw = await self.ws.recv()
            self.received += len(raw)
            forward.ParseFromString(raw)
            kind = forward.WhichOneof("type")
            if kind == "new_session":
                self.page_hash = forward.new_session.page_script_hash
            elif kind == "auto_rerun":
                self.timers[forward.auto_rerun.fragment_id] = forward.auto_rerun.interval
            elif kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                element = forward.delta.new_element
                elements.append(getattr(element, element.WhichOneof("type")))
                if getattr(elements[-1], "id", ""):
                    self.fragment_of[elements[-1].id] = forward.delta.fragment_id
            elif kind == "script_finished":
                if forward.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    elements, self.timers = [], {}    # the page called st.rerun(): its next run follows
                    fragment = ""
                    continue
                self.whole = not fragment
                return elements
