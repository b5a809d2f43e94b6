"""The fake Prolific on 127.0.0.1, with the environment fairval's client reads pointing at it."""
import pytest

from tests.fake_prolific import TOKEN, FakeProlific


@pytest.fixture
def fake(monkeypatch):
    server = FakeProlific()
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    monkeypatch.setenv("PROLIFIC_API_URL", server.url)
    yield server
    server.stop()
