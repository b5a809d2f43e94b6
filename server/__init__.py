"""The web server's own routes and middleware, beside Streamlit's (serve.py puts them in st.App): the
researcher's sign-in cookie, Prolific's push, the page with its boot watchdog, static files compressed
once, and the headers every response carries. No Streamlit views here (those are ui/); no SQL (store/)."""
