"""Streamlit building blocks shared by app.py and the researcher pages (no SQL here)."""
