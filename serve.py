"""What `fairval serve` runs: the app (app.py and pages/) with the server's own routes: the sign-in
cookie (server/sign_in_routes.py), Prolific's push (server/prolific_hook_route.py) and the page with its boot
watchdog (server/boot.py); Streamlit's static files sent compressed (server/compression.py), the answer card's
with a validator and a freshness (server/component_assets.py); every response says
no other site may frame it (server/headers.py); Streamlit's websocket for fairval's own pages only
(server/origins.py), a rerun naming a fragment the session does not hold run as a rerun of the whole page,
not dropped unanswered (server/fragments.py), and its upload route for sessions whose page has an uploader
(server/uploads.py); single sign-on
through the lab's provider when it names one (server/sso.py: Streamlit's st.login, configured from the environment)."""
import streamlit as st
from starlette.middleware import Middleware

from fairval.server.boot import ROUTES as PAGE_ROUTES
from fairval.server.component_assets import ComponentAssets
from fairval.server.compression import StaticCompression
from fairval.server.fragments import FragmentGate
from fairval.server.headers import SecurityHeaders
from fairval.server.origins import OriginGate
from fairval.server.prolific_hook_route import ROUTES as HOOK_ROUTES
from fairval.server.sign_in_routes import ROUTES as SIGN_IN_ROUTES
from fairval.server.sso import SsoLanding, streamlit_secrets
from fairval.server.uploads import UploadGate

app = st.App("app.py", routes=SIGN_IN_ROUTES + PAGE_ROUTES + HOOK_ROUTES,
             middleware=[Middleware(OriginGate), Middleware(FragmentGate), Middleware(UploadGate),
                         Middleware(SecurityHeaders), Middleware(StaticCompression), Middleware(ComponentAssets),
                         Middleware(SsoLanding)],
             secrets=streamlit_secrets())
