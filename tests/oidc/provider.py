"""node-oidc-provider (tests/oidc/provider.mjs) started on 127.0.0.1 for the single sign-on tests: a real OpenID
Connect provider (discovery, the code flow with PKCE, signed ID tokens, RP-initiated sign-out), installed by
`make oidc-provider`, which `make test` runs."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

HERE = Path(__file__).parent


class OidcProvider:
    def __init__(self, port: int, clients: list[dict], accounts: dict[str, dict]):
        node = shutil.which("node") or shutil.which("nodejs")
        if node is None or not (HERE / "node_modules" / "oidc-provider").is_dir():
            pytest.fail("node-oidc-provider is not installed: run `make oidc-provider` (make test runs it)")
        self.issuer = f"http://127.0.0.1:{port}"
        self.metadata_url = self.issuer + "/.well-known/openid-configuration"
        folder = Path(tempfile.mkdtemp(prefix="fairval-oidc-"))
        settings = folder / "settings.json"
        settings.write_text(json.dumps({"port": port, "clients": clients, "accounts": accounts}))
        self.log_path = folder / "provider.log"
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen([node, str(HERE / "provider.mjs"), str(settings)], cwd=HERE,
                                        stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while "listening" not in self.log_path.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the OIDC provider did not start: {self.log_path.read_text()}")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(10)
        self.log.close()
