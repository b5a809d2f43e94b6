"""What `fairval serve` runs: the app (app.py and pages/) with the server's own routes: the sign-in
cookie (ui/sign_in_routes.py) and the page with its boot watchdog (ui/boot.py)."""
import streamlit as st

from fairval.ui.boot import ROUTES as PAGE_ROUTES
from fairval.ui.sign_in_routes import ROUTES as SIGN_IN_ROUTES

app = st.App("app.py", routes=SIGN_IN_ROUTES + PAGE_ROUTES)
