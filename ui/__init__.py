"""Streamlit views shared by app.py and the researcher pages: the rater's page, the answer card, the
researcher views, sign-in and the rater's language (no SQL here; the web server's routes are server/)."""
