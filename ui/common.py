"""Per-session database handle and small display helpers."""
from __future__ import annotations

import logging
import numbers
import re

import streamlit as st

from fairval.annotate.outputs.files import markdown_text
from fairval.annotate.serving import uploads
from fairval.errors import FairvalError
from fairval.store import Connection, open_db
from fairval.store.db import default_db_path

LOG = logging.getLogger("fairval")

# On a phone Streamlit keeps 6rem above a page for its header, where a researcher page has only the sidebar's
# button (the rater's page hides the header: ui/rater.css): the page starts just below the header instead.
RESEARCHER_CSS = """<style>
@media (max-width: 640px) { [data-testid="stMainBlockContainer"] { padding-top: 3.75rem; } }
</style>"""


def guarded(render) -> None:
    """Draw a page: a refusal (FairvalError) is said in one line; anything else is a bug, so its
    traceback goes to the server log and the page says so plainly, without the traceback."""
    try:
        render()
    except FairvalError as e:
        st.error(inert(e))
    except Exception:                       # Streamlit's own stop and rerun are BaseExceptions: they pass
        LOG.exception("fairval: a page failed")
        st.error("Something went wrong in fairval itself (a bug, not your input). The server's log has the "
                 "details; please report it. Nothing you had saved is lost.")


def _session_and_page() -> tuple[str, str] | None:
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    return (ctx.session_id, ctx.page_script_hash) if ctx is not None and ctx.session_id else None


def no_uploads_here(*, whatever_page: bool = False) -> None:
    """First thing of every run: the upload route is closed to this session unless this is the page that
    drew its uploader (annotate/serving/uploads.py); `whatever_page`: closed in any case (the page stops
    before its uploader: a sign-in form, a role that may not import)."""
    held = _session_and_page()
    if held:
        uploads.withdraw(held[0], None if whatever_page else held[1])


def file_uploader(label: str, **options):
    """st.file_uploader, with the upload route opened to this session for this run, within its caps."""
    held = _session_and_page()
    if held:
        uploads.permit(*held)
    return st.file_uploader(label, **options)


def get_db() -> Connection:
    """One connection per browser session, opened on the path configured now (not at import)."""
    path = default_db_path()
    held = st.session_state.get("_fairval_db")
    if held is None or held[0] != path:
        held = (path, open_db(path))
        st.session_state["_fairval_db"] = held
    return held[1]


_IMAGE = re.compile(r"!\[([^\]]*)\]\s*(\([^)]*\)|\[[^\]]*\])")


def researcher_markdown(text: str) -> str:
    """Consent and instruction text a researcher wrote: Markdown, but an image becomes its alt text, so
    the page never makes a rater's browser fetch an address (raw HTML is never rendered by st.markdown)."""
    # then any image form left (a shortcut reference such as ![logo]) is made a plain link
    return _IMAGE.sub(lambda m: m.group(1), str(text)).replace("![", "[")



def inert(text) -> str:
    """Text from a participant or an imported file, made plain for a Markdown-rendering element
    (st.table cells, captions): no image is fetched, no link drawn, no formatting applied."""
    return markdown_text(text)


ONE_LINE = 26       # characters a "medium" column (200 px, 8 px padding a side) holds on one line, at worst
LINE, PADDING = 20, 8   # px: a wrapped line of the grid's text, and the row's padding above and below
MOST_LINES = 10     # a longer cell is cut at its tenth line rather than every row made a screen tall
WHOLE_ROWS = 20     # a wrapped table of at most this many rows is drawn whole ("auto" shows ~400 px of it)


def wrapped_row_height(cells) -> int | None:
    """The row height that shows the longest of these cells whole, wrapped at word boundaries in a "medium"
    column (at least three lines: a row over 4rem is one Streamlit's grid wraps text in); None when every
    cell fits on one line. A fixed three-line row cut a Calibration note of 160 characters at its fourth."""
    import textwrap

    lines = max((len(textwrap.wrap(str(cell), ONE_LINE)) for cell in cells), default=1)
    if lines <= 1:
        return None
    return PADDING * 2 + LINE * min(max(lines, 3), MOST_LINES)


COUNT_FORMAT = "%,d"        # printf's whole number, with "," between thousands (Streamlit's sprintf)
MONEY_FORMAT = "%,.2f"      # an amount: cents, thousands grouped as a count's are


def _whole(v) -> bool:
    return (isinstance(v, numbers.Integral) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())


def _undefined(v) -> bool:
    import pandas as pd

    from fairval.annotate.outputs.formats import DASH

    return (isinstance(v, str) and v == DASH) or (pd.api.types.is_scalar(v) and bool(pd.isna(v)))


def count_columns(frame, counts) -> dict:
    """The `counts` columns of `frame` (changed in place) as whole numbers, so a table sorts them as numbers, with
    the column config that shows them with thousands separators: "12,500". The researcher's pages are English, in
    their words and in every other number they print (a ratio "0.512", a mean "4.00", the cards' "12,000 / 12,000"),
    so a count is grouped as English groups it whatever the browser's locale (Streamlit's "localized" format would
    write "12.500" in a German browser, beside "0.512"). An undefined cell (a dash, None) is left empty, for the
    table's placeholder; a column holding anything else is left as it is."""
    import pandas as pd

    config = {}
    for c in counts:
        if c not in frame.columns or not all(_whole(v) or _undefined(v) for v in frame[c]):
            continue
        frame[c] = pd.array([None if _undefined(v) else int(v) for v in frame[c]], dtype="Int64")
        config[c] = st.column_config.NumberColumn(format=COUNT_FORMAT)
    return config


def money_columns(frame, money) -> dict:
    """The `money` columns of `frame` (changed in place) as numbers shown with cents and English thousands
    separators ("1,208.00"), so a table sorts amounts as numbers (as text "99.00" came after "1208.00")."""
    import pandas as pd

    config = {}
    for c in money:
        if c in frame.columns and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in frame[c]):
            frame[c] = pd.array([float(v) for v in frame[c]], dtype="Float64")
            config[c] = st.column_config.NumberColumn(format=MONEY_FORMAT)
    return config


def show_table(frame, *, narrow: tuple[str, ...] = (), wrap: bool = False, counts=(), money=()) -> None:
    """A table of participant-supplied or imported text: st.dataframe draws every cell as plain text (no
    Markdown, no link, no image), where st.table would render cells as Markdown. The `narrow` columns (long
    text: a template, a note) get a fixed width, their cells shortened with "…" (whole on hover), so the
    table's other columns fit the page rather than being pushed out of it. `wrap`: a narrow cell too long for
    one line is wrapped (every row taller) rather than cut at the column's edge. `counts`: the columns that
    count something (items, judgments, raters, pairs, n), shown with thousands separators (count_columns);
    `money`: amounts, with cents and thousands separators (money_columns). A missing value is shown as a dash,
    as formats.DASH writes an undefined number."""
    import pandas as pd

    from fairval.annotate.outputs.formats import DASH, readable

    frame = pd.DataFrame(frame)
    frame = frame.rename(columns={c: readable(c) for c in frame.columns})
    texts = {readable(c): st.column_config.TextColumn(width="medium") for c in narrow if readable(c) in frame.columns}
    config = {**texts, **count_columns(frame, [readable(c) for c in counts]),
              **money_columns(frame, [readable(c) for c in money])}
    # wrap: rows tall enough for the longest narrow cell's text, wrapped
    height = wrapped_row_height(cell for c in texts for cell in frame[c]) if wrap else None
    st.dataframe(frame, hide_index=isinstance(frame.index, pd.RangeIndex), column_config=config or None,
                 row_height=height, height="content" if height and len(frame) <= WHOLE_ROWS else "auto",
                 placeholder=DASH)
