"""Which Origin is fairval's own (annotate/serving/origins.py): the page's own address, port and scheme
included, or exactly the origins a lab names in FAIRVAL_PUBLIC_URL."""
import re

import pytest

from fairval.annotate.serving import origins
from fairval.annotate.serving.server import run
from fairval.errors import ServeRefused


@pytest.mark.parametrize("origin, host, own", [
    ("http://127.0.0.1:8501", "127.0.0.1:8501", True),
    ("http://127.0.0.1:9999", "127.0.0.1:8501", False),            # another port of the same host
    ("http://localhost:8501", "127.0.0.1:8501", False),             # another name for it: another origin
    ("https://lab.example", "lab.example", True),                    # the default port, said or not
    ("https://lab.example:443", "lab.example", True),
    ("HTTPS://Lab.Example", "lab.example", True),
    ("http://[::1]:8501", "[::1]:8501", True),
    ("http://[::1]:8502", "[::1]:8501", False),
    ("null", "127.0.0.1:8501", False),                               # a sandboxed frame or a file://
    ("http://127.0.0.1:8501", None, False),
    (None, "127.0.0.1:8501", True),                                  # not a browser's page: other checks
])
def test_own_origin_by_the_address_asked(origin, host, own):
    assert origins.is_own(origin, host, public=[]) is own


def test_named_public_origins_are_the_only_ones():
    public = [origins._origin("https://fairval.lab.example")]
    assert origins.is_own("https://fairval.lab.example", "10.0.0.11:8601", public)
    assert not origins.is_own("http://10.0.0.11:8601", "10.0.0.11:8601", public)      # a worker's own address
    assert not origins.is_own("https://fairval.lab.example:8443", "fairval.lab.example:8443", public)


def test_serve_refuses_an_unreadable_public_url(tmp_path):
    with pytest.raises(ServeRefused, match=re.escape("FAIRVAL_PUBLIC_URL: 'lab.example'")):
        run(str(tmp_path / "d.db"), port=None, address="127.0.0.1", extra_env={"FAIRVAL_PUBLIC_URL": "lab.example"})
