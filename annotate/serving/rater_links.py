"""Signed rater links for in-house studies: `fairval study links NAME --raters FILE` gives each rater a link
whose `sig` is an HMAC of the study and the rater id under the server's secret. A study set to
`signed_links=true` takes a rater only with a right `sig`, so knowing (or guessing) another in-house
rater's id is not enough to continue as them. Prolific's parameters cannot carry our signature, so such a
study refuses them (ui/rater.py): it is for its list of in-house raters only."""
from __future__ import annotations

import base64
import hashlib
import hmac
from urllib.parse import urlencode

from fairval.annotate.serving.sign_in import server_secret
from fairval.store import Connection

PARAM = "sig"


def signature(secret: str, study_id: str, rater_id: str) -> str:
    digest = hmac.new(secret.encode(), f"fairval rater link\x00{study_id}\x00{rater_id}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()[:18]).decode()          # 144 bits, 24 characters


def link(db: Connection, base_url: str, study_id: str, rater_id: str) -> str:
    query = urlencode({"study": study_id, "rater": rater_id, PARAM: signature(server_secret(db), study_id, rater_id)})
    return f"{base_url.rstrip('/')}/?{query}"


def signed(db: Connection, study_id: str, rater_id: str, given: str | None) -> bool:
    return isinstance(given, str) and hmac.compare_digest(given.encode(),
                                                          signature(server_secret(db), study_id, rater_id).encode())
