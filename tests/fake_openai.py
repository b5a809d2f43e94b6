"""A fake OpenAI-compatible server on 127.0.0.1 for the judge's tests: real HTTP, scripted answers."""
from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# script(request_json, call_number) -> (status, body dict (or bytes: sent as they are), headers); a header
# DRIP: seconds sends the body one byte at a time, that many seconds apart
DRIP = "X-Fake-Drip-Seconds"
Script = Callable[[dict, int], tuple[int, dict, dict]]


def completion(content: str, top: dict[str, float] | None = None, model: str = "fake") -> dict:
    """A chat completion; with `top` (token -> probability) it carries top_logprobs."""
    choice: dict = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
    if top is not None:
        entries = [{"token": t, "logprob": math.log(p), "bytes": list(t.encode())} for t, p in top.items() if p > 0]
        choice["logprobs"] = {"content": [{"token": content, "logprob": entries[0]["logprob"],
                                           "bytes": list(content.encode()), "top_logprobs": entries}]}
    else:
        choice["logprobs"] = None
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
            "choices": [choice], "usage": {"prompt_tokens": 100, "completion_tokens": 1, "total_tokens": 101}}


def error(status: int, message: str) -> dict:
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}


class FakeOpenAI:
    def __init__(self, script: Script):
        self.script = script
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.requests.append(body)
                    number = len(server.requests)
                status, payload, headers = server.script(body, number)
                headers = dict(headers)
                drip = float(headers.pop(DRIP, 0))
                raw = isinstance(payload, bytes)            # a body that is not JSON, as a broken proxy sends
                data = payload if raw else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html" if raw else "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                if not drip:
                    self.wfile.write(data)
                    return
                try:                                        # one byte every `drip` seconds, as a stuck server does
                    for byte in data:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        if server.stopped.wait(drip):
                            return
                except OSError:                             # the client gave up: what the deadline is for
                    return

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        # a short poll: shutdown() waits for the loop to notice, half a second at the default (per test)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stopped.set()
        self.httpd.shutdown()
        self.httpd.server_close()
