"""A small client for Prolific's public REST API (v1): submission statuses, approvals, bonuses.

The token comes from PROLIFIC_TOKEN and is only ever sent in the Authorization header: never stored,
never printed, never part of an error message. Calls that only read or set up (nothing paid, no state
changed) are retried on 429 and 5xx with back-off (Retry-After honoured). Calls that move money or change
a submission (paying a bulk bonus, a transition) are sent once and never retried: Prolific documents the
pay call as not idempotent, so a 5xx, a timeout or a connection dropped after the request left raises
OutcomeUnknown, and only the caller, who can check, decides what happened. Every other refusal becomes a
ProlificError naming the call and Prolific's own message.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable

import httpx2

from fairval.errors import OutcomeUnknown, ProlificError

API = "https://api.prolific.com"
RETRIES = 4




class ProlificClient:
    def __init__(self, token: str | None = None, *, base_url: str | None = None, timeout: float = 30.0,
                 sleep: Callable[[float], None] = time.sleep):
        token = token or os.environ.get("PROLIFIC_TOKEN")
        if not token:
            raise ProlificError("no Prolific API token: set PROLIFIC_TOKEN in the environment")
        self._http = httpx2.Client(base_url=base_url or os.environ.get("PROLIFIC_API_URL") or API,
                                   headers={"Authorization": f"Token {token}"}, timeout=timeout)
        self._sleep = sleep

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ProlificClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _once(self, method: str, path: str, **kwargs) -> dict:
        """A call that moves money or changes state: sent once. A refusal before any effect (4xx, 429,
        or a connection never made) is a ProlificError; anything after the request may have been acted
        on (5xx, timeout, dropped connection) is OutcomeUnknown."""
        try:
            response = self._http.request(method, path, **kwargs)
        except (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.PoolTimeout) as e:
            raise ProlificError(f"cannot reach Prolific for {method} {path}: {type(e).__name__} "
                                "(the request was not sent)") from None
        except httpx2.HTTPError as e:
            raise OutcomeUnknown(f"no answer from Prolific to {method} {path} after it was sent "
                                 f"({type(e).__name__})") from None
        if response.status_code >= 500:
            raise OutcomeUnknown(f"Prolific answered {response.status_code} to {method} {path} after "
                                 "receiving it") from None
        if response.status_code >= 400:
            raise ProlificError(f"Prolific answered {response.status_code} to {method} {path}: "
                                f"{_message(response)}")
        try:
            return response.json() if response.content else {}
        except ValueError:          # it was done (2xx); what came back is not needed to know that
            return {}

    def _call(self, method: str, path: str, **kwargs) -> dict:
        return self._call_response(method, path, **kwargs)[0]

    def _call_response(self, method: str, path: str, **kwargs) -> tuple[dict, dict]:
        for attempt in range(RETRIES + 1):
            try:
                response = self._http.request(method, path, **kwargs)
            except httpx2.HTTPError as e:
                if attempt == RETRIES:
                    raise ProlificError(f"cannot reach Prolific for {method} {path}: {type(e).__name__}") from None
                self._sleep(2 ** attempt)
                continue
            if (response.status_code == 429 or response.status_code >= 500) and attempt < RETRIES:
                self._sleep(_retry_after(response, 2 ** attempt))
                continue
            if response.status_code >= 400:
                raise ProlificError(f"Prolific answered {response.status_code} to {method} {path}: "
                                    f"{_message(response)}")
            try:
                return (response.json() if response.content else {}), dict(response.headers)
            except ValueError:
                text = " ".join(response.text.split())[:120]
                raise ProlificError(f"Prolific answered {response.status_code} to {method} {path} with something "
                                    f"that is not JSON ({text!r}); is the API address right? Nothing was paid") from None
        raise AssertionError("unreachable")

    def submissions(self, study_id: str) -> list[dict]:
        """Every submission of a Prolific study (id, participant_id, status), all pages."""
        out: list[dict] = []
        path: str | None = f"/api/v1/studies/{study_id}/submissions/"
        while path:
            page = self._call("GET", path)
            out += page.get("results", [])
            path = (page.get("_links", {}).get("next") or {}).get("href")
        return out

    def submission(self, submission_id: str) -> dict:
        return self._call("GET", f"/api/v1/submissions/{submission_id}/")

    def approve(self, submission_id: str) -> dict:
        """Sent once; an unknown outcome is settled by reading the submission's status back."""
        try:
            return self._once("POST", f"/api/v1/submissions/{submission_id}/transition/", json={"action": "APPROVE"})
        except OutcomeUnknown:
            status = self.submission(submission_id).get("status")
            if status == "APPROVED":
                return {"id": submission_id, "status": status}
            raise

    def set_up_bonuses(self, study_id: str, lines: list[tuple[str, float]]) -> str:
        """Set up a bulk bonus (participant id, amount per line); nothing is paid yet. Returns its id."""
        csv_bonuses = "\n".join(f"{pid},{amount:.2f}" for pid, amount in lines)
        setup = self._call("POST", "/api/v1/submissions/bonus-payments/",
                           json={"study_id": study_id, "csv_bonuses": csv_bonuses})
        return str(setup["id"])

    def pause_study(self, study_id: str) -> dict:
        """Pause a Prolific study (no new places). Sent once: a lost answer is settled by reading the study."""
        try:
            return self._once("POST", f"/api/v1/studies/{study_id}/transition/", json={"action": "PAUSE"})
        except OutcomeUnknown:
            if self._call("GET", f"/api/v1/studies/{study_id}/").get("status") == "PAUSED":
                return {"id": study_id, "status": "PAUSED"}
            raise

    def hook_secret(self, workspace_id: str) -> str:
        """Create (or replace) the workspace's secret for signing hook requests; returns its value."""
        return str(self._call("POST", "/api/v1/hooks/secrets/", json={"workspace_id": workspace_id})["value"])

    def subscribe(self, workspace_id: str, event_type: str, target_url: str) -> str:
        """Subscribe target_url to event_type and confirm it with the X-Hook-Secret Prolific answers
        with (Prolific's two steps); returns the subscription's id."""
        body, headers = self._call_response("POST", "/api/v1/hooks/subscriptions/", json={
            "workspace_id": workspace_id, "event_type": event_type, "target_url": target_url})
        found = body.get("results", [body]) if isinstance(body, dict) else []
        ours = [s for s in found if s.get("target_url") == target_url and s.get("event_type") == event_type]
        confirm = {k.lower(): v for k, v in headers.items()}.get("x-hook-secret")
        if not ours or not confirm:
            raise ProlificError("Prolific's answer to the subscription named no subscription or no X-Hook-Secret "
                                "to confirm it with")
        subscription = str(ours[-1]["id"])
        self._call("POST", f"/api/v1/hooks/subscriptions/{subscription}/", json={"secret": confirm})
        return subscription

    def pay_bulk_bonus(self, bulk_id: str) -> dict:
        """Pay a bulk bonus set up before: one request, never repeated (each request pays again)."""
        return self._once("POST", f"/api/v1/bulk-bonus-payments/{bulk_id}/pay/")


def _retry_after(response, default: float) -> float:
    try:
        return float(response.headers.get("retry-after", default))
    except ValueError:
        return default


def _message(response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return str(error.get("detail") or error.get("title") or error)
    return str(body)[:200]
