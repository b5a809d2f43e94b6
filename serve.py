"""What `fairval serve` runs: the app (app.py and pages/) with the server's own sign-in cookie routes."""
import streamlit as st

from ui.sign_in_routes import ROUTES

app = st.App("app.py", routes=ROUTES)
