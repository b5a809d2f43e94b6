"""A fake Prolific API on 127.0.0.1: real HTTP, a small in-memory study the test scripts (submissions
and their statuses), recording every call; optional failures injected per path.

It follows Prolific's documented semantics where money moves: `POST /bulk-bonus-payments/{id}/pay/` is not
idempotent, so every request pays the set-up again. `faults` scripts what happens around the work of a
call that changes something, per path pattern, one entry per request: "502" (done, then a 502), "drop"
(done, then the connection closed with no answer), "429" (throttled before anything is done), "400"
(refused before anything is done)."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = "test-token-not-secret"


class FakeProlific:
    def __init__(self, study_id: str = "PSTUDY"):
        self.study_id = study_id
        self.submissions: dict[str, dict] = {}             # submission id -> {id, participant_id, status}
        self.calls: list[tuple[str, str, dict | None, str]] = []   # method, path, body, auth header
        self.bonus_setups: dict[str, dict] = {}
        self.paid: list[dict] = []                          # bonus setups paid
        self.fail: dict[str, list[int]] = {}                # path pattern -> statuses to answer first
        self.faults: dict[str, list[str]] = {}              # path pattern -> what befalls the next requests
        self.lock = threading.Lock()
        self.study_status = "ACTIVE"                     # the Prolific study's own status
        self.hook_secret: str | None = None              # the workspace's secret for signing hook requests
        self.hook_subscriptions: dict[str, dict] = {}    # id -> subscription (is_enabled once confirmed)
        self.confirm_secrets: dict[str, str] = {}        # id -> the X-Hook-Secret that confirms it
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, status: int, payload: dict) -> None:
                extra = payload.pop("__headers__", {}) if isinstance(payload, dict) else {}
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in extra.items():
                    self.send_header(k, v)
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(data)

            def _handle(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                with fake.lock:
                    fake.calls.append((method, self.path, body, self.headers.get("Authorization", "")))
                    if self.headers.get("Authorization") != f"Token {TOKEN}":
                        return self._answer(401, {"error": {"detail": "Invalid token."}})
                    for pattern, statuses in fake.fail.items():
                        if re.search(pattern, self.path) and statuses:
                            return self._answer(statuses.pop(0), {"error": {"detail": "scripted failure"}})
                    fault = next((f.pop(0) for pattern, f in fake.faults.items()
                                  if re.search(pattern, self.path) and f), None)
                    if fault in ("429", "400"):                 # refused before any work
                        return self._answer(int(fault), {"error": {"detail": f"scripted {fault}"}})
                    status, payload = fake.route(method, self.path, body)
                if fault == "502":                                  # the work is done; the answer is lost
                    return self._answer(502, {"error": {"detail": "Bad gateway"}})
                if fault == "html":                                 # a proxy's page in place of the API's JSON
                    data = b"<html><body>Service window</body></html>"
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if fault == "drop":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                self._answer(status, payload)

            def do_GET(self):
                self._handle("GET")

            def do_POST(self):
                self._handle("POST")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # a short poll: shutdown() waits for the loop to notice, half a second at the default (per test)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def add(self, participant: str, status: str = "ACTIVE") -> str:
        sid = f"sub-{participant}"
        self.submissions[sid] = {"id": sid, "participant_id": participant, "status": status,
                                 "study_id": self.study_id}
        return sid

    def status_of(self, participant: str) -> str:
        return self.submissions[f"sub-{participant}"]["status"]

    def route(self, method: str, path: str, body: dict | None) -> tuple[int, dict]:
        if method == "GET" and path == f"/api/v1/studies/{self.study_id}/submissions/":
            return 200, {"results": list(self.submissions.values()), "_links": {"next": {"href": None}}}
        if method == "GET" and (m := re.fullmatch(r"/api/v1/submissions/([^/]+)/", path)):
            submission = self.submissions.get(m.group(1))
            return (200, submission) if submission else (404, {"error": {"detail": "Not found."}})
        if method == "POST" and (m := re.fullmatch(r"/api/v1/submissions/([^/]+)/transition/", path)):
            submission = self.submissions.get(m.group(1))
            if submission is None:
                return 404, {"error": {"detail": "Not found."}}
            if submission["status"] != "AWAITING REVIEW":
                return 400, {"error": {"detail": f"cannot approve a submission {submission['status']}"}}
            submission["status"] = "APPROVED"
            return 200, submission
        if method == "POST" and path == "/api/v1/submissions/bonus-payments/":
            setup_id = f"bonus-{len(self.bonus_setups) + 1}"
            self.bonus_setups[setup_id] = body
            return 201, {"id": setup_id, "study": body["study_id"], "total_amount": 0}
        if method == "POST" and (m := re.fullmatch(r"/api/v1/bulk-bonus-payments/([^/]+)/pay/", path)):
            if m.group(1) not in self.bonus_setups:
                return 404, {"error": {"detail": "Not found."}}
            self.paid.append(self.bonus_setups[m.group(1)])             # every request pays again
            return 202, {}
        if method == "GET" and path == f"/api/v1/studies/{self.study_id}/":
            return 200, {"id": self.study_id, "status": self.study_status}
        if method == "POST" and path == f"/api/v1/studies/{self.study_id}/transition/":
            if (body or {}).get("action") != "PAUSE" or self.study_status != "ACTIVE":
                return 400, {"error": {"detail": f"cannot {body} a study {self.study_status}"}}
            self.study_status = "PAUSED"
            return 200, {"id": self.study_id, "status": "PAUSED"}
        if method == "POST" and path == "/api/v1/hooks/secrets/":
            self.hook_secret = secrets.token_urlsafe(32)                   # one per workspace: replaced
            return 200, {"id": "secret-1", "value": self.hook_secret, "workspace_id": body["workspace_id"]}
        if method == "POST" and path == "/api/v1/hooks/subscriptions/":
            if self.hook_secret is None:
                return 400, {"error": {"detail": "create a secret for the workspace first"}}
            if not str(body.get("target_url", "")).startswith("https://"):
                return 400, {"error": {"detail": "target_url must use https://"}}
            sid = f"subscription-{len(self.hook_subscriptions) + 1}"
            self.hook_subscriptions[sid] = {"id": sid, "event_type": body["event_type"], "target_url": body["target_url"],
                                            "workspace_id": body["workspace_id"], "is_enabled": False}
            self.confirm_secrets[sid] = secrets.token_hex(16)
            return 201, {"results": list(self.hook_subscriptions.values()),
                         "__headers__": {"X-Hook-Secret": self.confirm_secrets[sid]}}
        if method == "POST" and (m := re.fullmatch(r"/api/v1/hooks/subscriptions/([^/]+)/", path)):
            sid = m.group(1)
            if sid not in self.hook_subscriptions or (body or {}).get("secret") != self.confirm_secrets.get(sid):
                return 400, {"error": {"detail": "the secret does not confirm this subscription"}}
            self.hook_subscriptions[sid]["is_enabled"] = True
            return 200, self.hook_subscriptions[sid]
        return 404, {"error": {"detail": f"no route {method} {path}"}}

    def push(self, client, url: str, submission: str, participant: str, status: str, *, event_id: str,
             event_at: float, sent_at: float, secret: str | None = None):
        """Send a submission.status.change event as Prolific documents it (Receiving, Verifying, X-Event-ID,
        X-Timestamp): the body, signed as base64(HMAC-SHA256(secret, timestamp + body)). `client` is any
        HTTP client with .post (the server under test)."""
        body = json.dumps({"resource_id": submission, "event_type": "submission.status.change",
                           "participant_id": participant, "status": status}).encode()
        stamp = str(int(sent_at))
        key = (secret if secret is not None else self.hook_secret).encode()
        signed = base64.b64encode(hmac.new(key, stamp.encode() + body, hashlib.sha256).digest()).decode()
        return client.post(url, content=body, headers={
            "Content-Type": "application/json", "X-Prolific-Request-Signature": signed,
            "X-Prolific-Request-Timestamp": stamp, "X-Event-ID": event_id, "X-Timestamp": str(event_at)})

    def paid_to(self) -> dict[str, float]:
        """Participant -> every bonus paid to them so far, over all pay requests."""
        total: dict[str, float] = {}
        for setup in self.paid:
            for line in setup["csv_bonuses"].splitlines():
                pid, amount = line.split(",")
                total[pid] = round(total.get(pid, 0.0) + float(amount), 2)
        return total

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
