"""One address in front of several Streamlit workers: an ASGI reverse proxy for HTTP and WebSockets.

A browser sticks to one worker (a `fairval_worker` cookie), because a Streamlit session, its uploads
and its downloads live in that worker's memory. A new browser gets the next worker in turn; one whose
worker stopped answering is moved to another and resumes from the database, which holds its slot.
Built on starlette and uvicorn (incoming), httpx2 and websockets (outgoing), which Streamlit and the
openai client already bring.
"""
from __future__ import annotations

import asyncio
import itertools
import time
from urllib.parse import urlparse

import httpx2
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

COOKIE = "fairval_worker"
HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
              "transfer-encoding", "upgrade", "host"}
RETRY_DOWN_AFTER = 5.0          # seconds before a worker that failed is tried again


class Workers:
    """The workers' ports, which browser goes to which, and which seem down."""

    def __init__(self, ports: list[int]):
        self.ports = ports
        self._turn = itertools.cycle(range(len(ports)))
        self._down: dict[int, float] = {}

    def pick(self, cookie: str | None, avoid: set[int] = frozenset()) -> int | None:
        """The cookie's worker while it is up, else the next one up in turn (None: all down)."""
        now = time.monotonic()
        up = [k for k in range(len(self.ports))
              if k not in avoid and now - self._down.get(k, -RETRY_DOWN_AFTER) >= RETRY_DOWN_AFTER]
        if cookie is not None and cookie.isdigit() and int(cookie) in up:
            return int(cookie)
        for _ in range(len(self.ports)):
            k = next(self._turn)
            if k in up:
                return k
        return None

    def failed(self, k: int) -> None:
        self._down[k] = time.monotonic()


class Proxy:
    def __init__(self, ports: list[int]):
        self.workers = Workers(ports)
        self.client = httpx2.AsyncClient(timeout=httpx2.Timeout(60.0, connect=2.0),
                                         limits=httpx2.Limits(max_connections=1000))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            response = await self.http(Request(scope, receive))
            await response(scope, receive, send)
        elif scope["type"] == "websocket":
            await self.websocket(WebSocket(scope, receive, send))
        elif scope["type"] == "lifespan":
            await self.lifespan(receive, send)

    async def lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def http(self, request: Request) -> Response:
        body = await request.body()
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP]
        tried: set[int] = set()
        while (k := self.workers.pick(request.cookies.get(COOKIE), tried)) is not None:
            url = f"http://127.0.0.1:{self.workers.ports[k]}{request.url.path}"
            outgoing = self.client.build_request(request.method, url, params=request.query_params,
                                                 headers=headers, content=body)
            try:
                upstream = await self.client.send(outgoing, stream=True)
            except httpx2.TransportError:
                self.workers.failed(k)
                tried.add(k)
                continue
            reply = [(name, value) for name, value in upstream.headers.multi_items()
                     if name.lower() not in HOP_BY_HOP]
            response = StreamingResponse(upstream.aiter_raw(), status_code=upstream.status_code,
                                         background=_Close(upstream))
            # which worker answered: for operators' logs and the tests, nothing a client must read
            reply.append(("x-fairval-worker", str(k)))
            response.raw_headers = [(n.encode("latin-1"), v.encode("latin-1")) for n, v in reply]
            if request.cookies.get(COOKIE) != str(k):
                response.set_cookie(COOKIE, str(k), httponly=True, samesite="lax")
            return response
        return PlainTextResponse("No fairval worker is answering; try again in a moment.", status_code=503)

    async def websocket(self, websocket: WebSocket) -> None:
        origin, host = websocket.headers.get("origin"), websocket.headers.get("host")
        if origin is not None and urlparse(origin).netloc != host:       # same-origin only, as Streamlit
            await websocket.close(code=1008)
            return
        cookie_header = websocket.headers.get("cookie")
        tried: set[int] = set()
        while (k := self.workers.pick(websocket.cookies.get(COOKIE), tried)) is not None:
            port = self.workers.ports[k]
            query = websocket.url.query
            url = f"ws://127.0.0.1:{port}{websocket.url.path}" + (f"?{query}" if query else "")
            try:
                upstream = await ws_connect(
                    url, subprotocols=websocket.scope.get("subprotocols") or None,
                    # the worker checks Origin against its own address: present its own origin
                    origin=f"http://127.0.0.1:{port}" if origin else None,
                    additional_headers=[("Cookie", cookie_header)] if cookie_header else None,
                    max_size=None, ping_interval=None, compression=None, open_timeout=10)
            except (OSError, asyncio.TimeoutError):
                self.workers.failed(k)
                tried.add(k)
                continue
            await websocket.accept(subprotocol=upstream.subprotocol)
            await _pump(websocket, upstream)
            return
        await websocket.close(code=1013)             # try again later


async def _pump(browser: WebSocket, worker) -> None:
    """Frames both ways until either side closes; then the other is closed too."""
    async def to_worker() -> None:
        try:
            while True:
                message = await browser.receive()
                if message["type"] == "websocket.disconnect":
                    return
                await worker.send(message["bytes"] if message.get("bytes") is not None else message["text"])
        except (WebSocketDisconnect, ConnectionClosed):
            return

    async def to_browser() -> None:
        try:
            async for data in worker:
                if isinstance(data, bytes):
                    await browser.send_bytes(data)
                else:
                    await browser.send_text(data)
        except (ConnectionClosed, RuntimeError):
            return

    tasks = [asyncio.create_task(to_worker()), asyncio.create_task(to_browser())]
    await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in tasks:
        task.cancel()
    await worker.close()
    try:
        await browser.close()
    except (RuntimeError, WebSocketDisconnect):        # already closed by the browser
        pass


class _Close:
    """Closes the upstream response once its body has been sent (a starlette background task)."""

    def __init__(self, upstream: httpx2.Response):
        self.upstream = upstream

    async def __call__(self) -> None:
        await self.upstream.aclose()
