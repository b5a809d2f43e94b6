"""`fairval serve`: the Streamlit workers and their supervisor (server), HAProxy's configuration in front
of several workers (front), and the researcher's one-time sign-in links (sign_in).

A supervising parent holds no analysis libraries, so may import only: store/, fairval.errors.
"""
