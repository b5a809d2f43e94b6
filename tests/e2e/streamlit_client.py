"""A browser tab as the server sees it: Streamlit's websocket protocol with its own protobufs (BackMsg out,
ForwardMsg in), any header an attacker likes (X-Forwarded-For). Forms are filled and submitted as the
browser's frontend does: the form's widget values and its submit button's trigger in one rerun."""
from __future__ import annotations

import asyncio

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState


class Tab:
    def __init__(self, ws, page: str = "", query: str = ""):
        self.ws, self.page, self.query = ws, page, query
        self.page_hash = ""
        self.session_id = ""
        self.config = None                  # what the server told the frontend (new_session.config)
        self.elements: list = []
        self.fragment_of: dict[str, str] = {}      # element id -> the fragment (st.fragment) that drew it

    def _fragment(self, widgets) -> str:
        """The fragment a browser names with these widgets' event: the one that drew them all (a component's
        trigger is named after its element), else none (the whole page reruns)."""
        drawn = {self.fragment_of.get(w.id.removeprefix("$$STREAMLIT_INTERNAL_KEY_").removesuffix("__events"), "")
                 for w in widgets}
        return drawn.pop() if len(drawn) == 1 else ""

    async def ask(self, widgets: list[WidgetState] = (), fragment: str | None = None) -> None:
        """A rerun request as the browser sends it: with `widgets`' states, naming the fragment they were drawn in
        (`fragment`: another, or "" for the whole page, as a lying client may); the answer is not read."""
        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_name = self.page
        msg.rerun_script.page_script_hash = self.page_hash
        msg.rerun_script.widget_states.widgets.extend(widgets)
        msg.rerun_script.fragment_id = self._fragment(widgets) if fragment is None else fragment
        await self.ws.send(msg.SerializeToString())

    async def run(self, widgets: list[WidgetState] = (), fragment: str | None = None) -> list:
        """One rerun as the browser asks it (ask), read to its end: the elements it drew."""
        await self.ask(widgets, fragment)
        elements = []
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await asyncio.wait_for(self.ws.recv(), 60))
            kind = forward.WhichOneof("type")
            if kind == "new_session":
                self.session_id = forward.new_session.initialize.session_id or self.session_id
                self.config = forward.new_session.config
                if not self.page:                           # (a page asked by name is asked by name again)
                    self.page_hash = forward.new_session.page_script_hash
            elif kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                element = forward.delta.new_element
                elements.append(getattr(element, element.WhichOneof("type")))
                if getattr(elements[-1], "id", ""):
                    self.fragment_of[elements[-1].id] = forward.delta.fragment_id
            elif kind == "script_finished":
                if forward.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    elements = []
                    continue
                self.elements = elements
                return elements

    def texts(self) -> list[str]:
        return [getattr(e, "body", "") for e in self.elements if getattr(e, "body", "")]

    def widget(self, label: str):
        found = [e for e in self.elements if getattr(e, "label", None) == label and getattr(e, "id", "")]
        assert found, f"no widget {label!r} on the page; it says {self.texts()}"
        return found[0]

    async def press(self, label: str) -> None:
        """A click on the button labelled `label`."""
        press = WidgetState(id=self.widget(label).id)
        press.trigger_value = True
        await self.run([press])

    def card(self):
        """The answer card on the page (a custom component), or None."""
        found = [e for e in self.elements if getattr(e, "component_name", "").endswith("fairval_answer_card")]
        return found[0] if found else None

    async def download(self, file_id: str):
        """What the frontend asks when a download button whose file is made on click is pressed: the
        server's answer (a url to fetch, or an error message)."""
        msg = BackMsg()
        msg.backend_operation_request.request_id = f"download-{file_id}"
        msg.backend_operation_request.session_id = self.session_id
        msg.backend_operation_request.deferred_file.file_id = file_id
        await self.ws.send(msg.SerializeToString())
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await asyncio.wait_for(self.ws.recv(), 60))
            if forward.WhichOneof("type") == "backend_operation_response":
                return forward.backend_operation_response

    async def submit_form(self, values: dict[str, str], button: str) -> list:
        states = []
        for label, value in values.items():
            state = WidgetState(id=self.widget(label).id)
            state.string_value = value
            states.append(state)
        press = WidgetState(id=self.widget(button).id)
        press.trigger_value = True
        return await self.run([*states, press])


def connect(url: str, headers: dict[str, str] | None = None):
    host = url.split("://", 1)[1]
    return websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"],
                              additional_headers={"Origin": f"http://{host}", **(headers or {})},
                              max_size=None, open_timeout=60, ping_interval=None)
