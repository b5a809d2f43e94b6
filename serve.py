"""What `fairval serve` runs: the app (app.py and pages/) with the server's own routes: the sign-in
cookie (ui/sign_in_routes.py), Prolific's push (ui/prolific_hook_route.py) and the page with its boot
watchdog (ui/boot.py); Streamlit's static files sent compressed (ui/compression.py); every response says no
other site may frame it (ui/headers.py)."""
import streamlit as st
from starlette.middleware import Middleware

from fairval.ui.boot import ROUTES as PAGE_ROUTES
from fairval.ui.compression import StaticCompression
from fairval.ui.headers import SecurityHeaders
from fairval.ui.prolific_hook_route import ROUTES as HOOK_ROUTES
from fairval.ui.sign_in_routes import ROUTES as SIGN_IN_ROUTES

app = st.App("app.py", routes=SIGN_IN_ROUTES + PAGE_ROUTES + HOOK_ROUTES,
             middleware=[Middleware(SecurityHeaders), Middleware(StaticCompression)])
