"""A deadline for a whole call to the judge's server. httpx's timeouts bound each wait between bytes, so a
server that accepts the call and then sends a byte every two seconds would hold a run for as long as it
likes; this transport ends the call once `seconds` have passed since it was sent, however the bytes come.
The openai client sees httpx.ReadTimeout, its APITimeoutError: a failed call, retried with back-off."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import cast

import httpx2 as httpx  # the HTTP library the openai client is built on


class _Bounded(httpx.SyncByteStream):
    def __init__(self, chunks: Iterator[bytes], close: Callable[[], None]):
        self._chunks, self._close = chunks, close

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks

    def close(self) -> None:
        self._close()


class DeadlineTransport(httpx.BaseTransport):
    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic):
        self.seconds, self.clock = seconds, clock
        self.inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        start = self.clock()
        response = self.inner.handle_request(request)
        stream = cast(httpx.SyncByteStream, response.stream)     # a sync transport's answer streams synchronously

        def chunks() -> Iterator[bytes]:
            for chunk in stream:
                if self.clock() - start > self.seconds:
                    stream.close()
                    raise httpx.ReadTimeout(f"no whole answer within {self.seconds:g} s", request=request)
                yield chunk

        return httpx.Response(response.status_code, headers=response.headers, stream=_Bounded(chunks(), stream.close),
                              extensions=response.extensions, request=request)

    def close(self) -> None:
        self.inner.close()


def http_client(seconds: float) -> httpx.Client:
    """An httpx client whose every call ends within `seconds` (each wait too: a silent server as well)."""
    return httpx.Client(transport=DeadlineTransport(seconds), timeout=httpx.Timeout(seconds))
