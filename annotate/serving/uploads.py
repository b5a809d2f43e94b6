"""Which browser sessions may send files to Streamlit's upload route (/_stcore/upload_file/SESSION/FILE).

Streamlit takes a file from any live session that names itself in the address, whether or not its page
has a file uploader: a rater's link was enough to hold 100 MiB per request in the worker's memory, without
end. fairval opens the route per session instead: a page that draws an uploader (Manage's Import, for an
editor) permits its own session just before, a run of any other page (or of that page for someone who may
not import) withdraws the permit, and the web server (server/uploads.py) refuses every other session before
reading a byte of the body. A rerun of the uploader's own page keeps it: the browser may be sending a file
while that rerun runs.

Process-wide and in memory, like the sessions it names: each worker knows its own."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

MOST_BYTES = 50 * 1024 * 1024        # one Import file; the largest seed layout is a few MiB
MOST_HELD = 3                        # files a session holds at once (a replaced file is deleted after the new one)
MOST_SENT = 20                       # files a browser session may send in all (a reload starts a new one)
MOST_SESSIONS = 10_000               # sessions remembered (only pages with an uploader add one)
MULTIPART_MARGIN = 64 * 1024         # the form's boundaries and headers around the file


@dataclass
class _Permit:
    open: bool = True                # the session's page draws an uploader
    page: str = ""                   # which page (Streamlit's page script hash)
    held: set[str] = field(default_factory=set)
    sent: int = 0                    # kept across runs, so a rerun does not renew the session's share


_permits: dict[str, _Permit] = {}
_lock = threading.Lock()


def permit(session_id: str, page: str) -> None:
    """The session's page draws an uploader in this run."""
    with _lock:
        if session_id not in _permits and len(_permits) >= MOST_SESSIONS:
            _permits.pop(next(iter(_permits)))                   # the oldest: long gone, in practice
        held = _permits.setdefault(session_id, _Permit())
        held.open, held.page = True, page


def withdraw(session_id: str, page: str | None = None) -> None:
    """A run of `page` starts (None: the page will draw no uploader, whichever it is): another page than the
    uploader's has none (files already held stay Streamlit's)."""
    with _lock:
        held = _permits.get(session_id)
        if held is not None and (page is None or page != held.page):
            held.open = False


def take(session_id: str, file_id: str, declared_bytes: int) -> str | None:
    """Count one file in, or say in one line why not."""
    if declared_bytes > MOST_BYTES + MULTIPART_MARGIN:
        return f"a file here is at most {MOST_BYTES // (1024 * 1024)} MiB"
    with _lock:
        held = _permits.get(session_id)
        if held is None or not held.open:
            return "this page takes no files"
        if held.sent >= MOST_SENT or len(held.held - {file_id}) >= MOST_HELD:
            return f"at most {MOST_SENT} files per visit, {MOST_HELD} at once: reload the page"
        held.sent += 1
        held.held.add(file_id)
    return None


def give_back(session_id: str, file_id: str) -> None:
    """The file was refused after all, or deleted by its page (it still counts as sent)."""
    with _lock:
        held = _permits.get(session_id)
        if held is not None:
            held.held.discard(file_id)
